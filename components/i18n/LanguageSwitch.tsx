"use client";

import { useLocale, useTranslations } from "next-intl";
import { useRouter } from "next/navigation";
import { useTransition } from "react";
import {
  LANGUAGE_NAMES,
  LOCALES,
  LOCALE_COOKIE,
  LOCALE_COOKIE_MAX_AGE_S,
  isAppLocale,
  isShippedLocale,
  type AppLocale,
} from "@/i18n/locales";

/** Remember the choice on this device: the server reads the cookie on every request (i18n/request.ts). */
export function rememberLocale(locale: AppLocale): void {
  document.cookie = `${LOCALE_COOKIE}=${locale}; Max-Age=${LOCALE_COOKIE_MAX_AGE_S}; Path=/; SameSite=Lax`;
}

/** What the compact switch shows: short enough to sit beside the room code and the connection pill on a 360 px phone. */
const SHORT_NAMES: Record<AppLocale, string> = {
  en: "EN",
  de: "DE",
  fr: "FR",
  es: "ES",
  "pt-BR": "PT",
  ja: "日本語",
  "zh-CN": "中文",
  ar: "عربي",
  "en-XA": "XA",
};

function Globe() {
  return (
    <svg viewBox="0 0 16 16" className="h-4 w-4 shrink-0" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="1.3">
      <circle cx="8" cy="8" r="6.5" />
      <path d="M1.5 8h13M8 1.5c2 2 2.6 4 2.6 6.5S10 12.5 8 14.5M8 1.5C6 3.5 5.4 5.5 5.4 8S6 12.5 8 14.5" />
    </svg>
  );
}

/**
 * The visible language switch: a native select, so it works from the keyboard
 * and a screen reader names it, and each language is written in itself. It
 * re-renders the page in place (router.refresh): a live class keeps its
 * socket, its vote and its place. `compact` shows the language's short name
 * over the select (the phone's header has no room for "Português (Brasil)").
 */
export function LanguageSwitch({ compact = false, className = "" }: { compact?: boolean; className?: string }) {
  const locale = useLocale();
  const t = useTranslations("language");
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  // The pseudo-locale is never offered; while a test has chosen it, it is shown so the select tells the truth.
  const options: readonly AppLocale[] = isShippedLocale(locale) ? LOCALES : [...LOCALES, locale];
  const select = (
    <select
      data-testid="language-switch"
      data-lang={locale}
      aria-label={t("label")}
      value={locale}
      disabled={pending}
      onChange={(e) => {
        const next = e.target.value;
        if (!isAppLocale(next) || next === locale) return;
        rememberLocale(next);
        startTransition(() => router.refresh());
      }}
      className={
        compact
          ? "absolute inset-0 h-full w-full cursor-pointer opacity-0"
          : "max-w-[9rem] rounded-md border border-slate-600 bg-slate-900 py-1 pe-1 ps-1.5 text-sm text-slate-100"
      }
    >
      {options.map((l) => (
        <option key={l} value={l} lang={l}>
          {LANGUAGE_NAMES[l]}
        </option>
      ))}
    </select>
  );
  if (compact) {
    return (
      <span
        className={`relative inline-flex shrink-0 items-center gap-1 rounded-md border border-slate-600 bg-slate-900 px-1.5 py-1 text-sm font-semibold text-slate-100 has-[select:focus-visible]:ring-2 has-[select:focus-visible]:ring-sky-300 ${className}`}
      >
        <Globe />
        {/* Each language's short name as that language writes it, like the options: not for a translation tool. */}
        <span aria-hidden="true" lang={locale} translate="no">
          {SHORT_NAMES[locale]}
        </span>
        {select}
      </span>
    );
  }
  return (
    <label className={`inline-flex shrink-0 items-center gap-1 text-sm text-slate-300 ${className}`}>
      <Globe />
      {select}
    </label>
  );
}
