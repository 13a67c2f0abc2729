"use client";

import { NextIntlClientProvider, useLocale, useTimeZone } from "next-intl";
import { useEffect, useState, type ReactNode } from "react";
import { directionOf } from "@/i18n/locales";
import type { Messages } from "@/i18n/request";
import type { RoomLanguage as Language } from "@/lib/protocol/wire";
import { usePublicSnapshot } from "@/components/live/LiveSession";

type Part = { default: object };

/**
 * One import per catalog file, as i18n/request.ts has them on the server: the bundler splits each language into
 * chunks of its own, so a projector downloads only the language the teacher chose.
 */
const CATALOGS: Record<Language, () => Promise<Part[]>> = {
  en: () =>
    Promise.all([
      import("@/messages/en.json"),
      import("@/messages/console/en.json"),
      import("@/messages/projector/en.json"),
      import("@/messages/teacher/en.json"),
      import("@/messages/lesson/en.json"),
    ]),
  de: () =>
    Promise.all([
      import("@/messages/de.json"),
      import("@/messages/console/de.json"),
      import("@/messages/projector/de.json"),
      import("@/messages/teacher/de.json"),
      import("@/messages/lesson/de.json"),
    ]),
  fr: () =>
    Promise.all([
      import("@/messages/fr.json"),
      import("@/messages/console/fr.json"),
      import("@/messages/projector/fr.json"),
      import("@/messages/teacher/fr.json"),
      import("@/messages/lesson/fr.json"),
    ]),
  es: () =>
    Promise.all([
      import("@/messages/es.json"),
      import("@/messages/console/es.json"),
      import("@/messages/projector/es.json"),
      import("@/messages/teacher/es.json"),
      import("@/messages/lesson/es.json"),
    ]),
  "pt-BR": () =>
    Promise.all([
      import("@/messages/pt-BR.json"),
      import("@/messages/console/pt-BR.json"),
      import("@/messages/projector/pt-BR.json"),
      import("@/messages/teacher/pt-BR.json"),
      import("@/messages/lesson/pt-BR.json"),
    ]),
  ja: () =>
    Promise.all([
      import("@/messages/ja.json"),
      import("@/messages/console/ja.json"),
      import("@/messages/projector/ja.json"),
      import("@/messages/teacher/ja.json"),
      import("@/messages/lesson/ja.json"),
    ]),
  "zh-CN": () =>
    Promise.all([
      import("@/messages/zh-CN.json"),
      import("@/messages/console/zh-CN.json"),
      import("@/messages/projector/zh-CN.json"),
      import("@/messages/teacher/zh-CN.json"),
      import("@/messages/lesson/zh-CN.json"),
    ]),
  ar: () =>
    Promise.all([
      import("@/messages/ar.json"),
      import("@/messages/console/ar.json"),
      import("@/messages/projector/ar.json"),
      import("@/messages/teacher/ar.json"),
      import("@/messages/lesson/ar.json"),
    ]),
};

const loaded = new Map<Language, Messages>();

async function messagesOf(language: Language): Promise<Messages> {
  const held = loaded.get(language);
  if (held) return held;
  const parts = await CATALOGS[language]();
  // The parts' namespaces are disjoint (tests/i18n/catalogs.test.ts), so their union is the whole catalog.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
  const messages = Object.assign({}, ...parts.map((p) => p.default)) as Messages;
  loaded.set(language, messages);
  return messages;
}

/**
 * The projector is one screen for the whole room, so it speaks the language the teacher chose for the room
 * (`projector:language`, the session record's `projectorLanguage`), whatever this browser's own is; with no choice,
 * the browser's (the page's locale). It changes live: the catalog is fetched, then the screen re-renders in it.
 */
export function RoomLanguage({ children }: { children: ReactNode }) {
  const chosen = usePublicSnapshot().projectorLanguage;
  const own = useLocale();
  const timeZone = useTimeZone();
  const [held, setHeld] = useState<{ language: Language; messages: Messages } | null>(null);
  useEffect(() => {
    if (!chosen || chosen === held?.language) return;
    let current = true;
    void messagesOf(chosen).then((messages) => current && setHeld({ language: chosen, messages }));
    return () => {
      current = false;
    };
  }, [chosen, held?.language]);
  // Until the chosen catalog has arrived the screen stays in the language it was in (never blank, never mixed).
  const room = chosen && held?.language === chosen ? held : null;
  const locale = room ? room.language : own;
  const body = (
    <div lang={locale} dir={directionOf(locale)} className="contents" data-testid="room-language" data-lang={locale}>
      {children}
    </div>
  );
  if (!room) return body;
  return (
    <NextIntlClientProvider locale={room.language} messages={room.messages} timeZone={timeZone}>
      {body}
    </NextIntlClientProvider>
  );
}
