"use client";

import { NextIntlClientProvider, useLocale, useTimeZone } from "next-intl";
import { useEffect, useState, type ReactNode } from "react";
import { directionOf } from "@/i18n/locales";
import { loadMessages, type Messages } from "@/i18n/catalogs";
import type { RoomLanguage as Language } from "@/lib/protocol/wire";
import { usePublicSnapshot } from "@/components/live/LiveSession";

/** Each language's catalog once per page (i18n/catalogs.ts: the same parts and English lesson fallback as the server's). */
const loaded = new Map<Language, Promise<Messages>>();

function messagesOf(language: Language): Promise<Messages> {
  let held = loaded.get(language);
  if (!held) {
    // A chunk that failed to load (a dropped network) is fetched again next time, not remembered as failed.
    held = loadMessages(language).catch((err: unknown) => {
      loaded.delete(language);
      throw err;
    });
    loaded.set(language, held);
  }
  return held;
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
