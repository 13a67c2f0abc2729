"use client";

import { useTranslations } from "next-intl";
import { LANGUAGE_NAMES } from "@/i18n/locales";
import { ROOM_LANGUAGES, type RoomLanguage } from "@/lib/protocol/wire";
import { useHostSnapshot, useSend } from "@/components/live/LiveSession";

/** The select's value for "no choice": each projector reads its own browser's language. */
const OWN = "";

const isRoomLanguage = (value: string): value is RoomLanguage => (ROOM_LANGUAGES as readonly string[]).includes(value);

/**
 * The console's choice of the projector's language: the projector is one screen for the whole room, so the teacher
 * chooses its language (`projector:language`), and every projector of the room follows at once. A native select, so
 * it works from the keyboard and a screen reader names it; each language is written in itself. What it shows is the
 * server's answer (the session record's `projectorLanguage`), so two consoles agree.
 */
export function ProjectorLanguageSelect({ className = "" }: { className?: string }) {
  const t = useTranslations("roomLanguage");
  const chosen = useHostSnapshot().projectorLanguage;
  const send = useSend();
  return (
    <label className={`flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-slate-300 ${className}`}>
      {t("label")}
      <select
        data-testid="projector-language"
        data-lang={chosen ?? OWN}
        value={chosen ?? OWN}
        onChange={(e) => {
          const next = e.target.value;
          const language = isRoomLanguage(next) ? next : null;
          if (language === chosen) return;
          // A refusal reaches the console's error line through the store; the select shows what the server holds.
          void send("projector:language", { language });
        }}
        className="max-w-full rounded-md border border-slate-600 bg-slate-900 py-1 pe-1 ps-1.5 text-sm text-slate-100 focus-visible:outline focus-visible:outline-2 focus-visible:outline-sky-300"
      >
        <option value={OWN}>{t("browser")}</option>
        {ROOM_LANGUAGES.map((l) => (
          <option key={l} value={l} lang={l}>
            {LANGUAGE_NAMES[l]}
          </option>
        ))}
      </select>
    </label>
  );
}
