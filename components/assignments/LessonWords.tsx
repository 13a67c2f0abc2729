"use client";

import { useLocale, useTranslations } from "next-intl";
import { useCallback } from "react";
import { useLessonProse } from "@/components/i18n/useScenario";
import type { Localized } from "@/lib/lesson/localize";
import { KUBE_VERSIONS, type KubeVersion } from "@/lib/lesson/versions";

/**
 * A lesson's own words on a teacher's page: the built-in lesson's in the
 * reader's language (lang="en" where its catalog has no translation yet), a
 * teacher's own as they wrote them, which no tool should translate.
 * `data-lesson-words` says they are the lesson's, not the interface's (the
 * lesson catalog's own tests check them; the diagram's step names in them stay as drawn).
 */
export function LessonWords({ words, className }: { words: Localized; className?: string }) {
  return (
    <span lang={words.lang} translate={words.lang === undefined ? "no" : undefined} className={className} data-lesson-words>
      {words.text}
    </span>
  );
}

/** A title or sentence that may be the built-in lesson's (a scenario's title): localized if it is, else as written. */
export function useProseText(): (english: string) => Localized {
  const prose = useLessonProse();
  return useCallback((english: string) => (prose.knows(english) ? prose.localize(english) : { text: english, lang: undefined }), [prose]);
}

/** "1.32 or older", "1.33", "1.35 or later": a Kubernetes release as the version pickers name it, in the page's language. */
export function useKubeVersionLabel(): (version: KubeVersion) => string {
  const t = useTranslations("kubeVersions");
  return useCallback(
    (version: KubeVersion) => {
      const at = KUBE_VERSIONS.indexOf(version);
      if (at === 0) return t("older", { version });
      if (at === KUBE_VERSIONS.length - 1) return t("later", { version });
      return t("exact", { version });
    },
    [t],
  );
}

/** A short date and time for lists, in the page's language and the reader's time zone. */
export function useShortDate(): (at: number) => string {
  const locale = useLocale();
  return useCallback((at: number) => new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" }).format(at), [locale]);
}

/** A date or time Intl wrote in the page's language: shown as it is, not for a translation tool to reword. */
export function When({ at, children }: { at: number; children: React.ReactNode }) {
  return (
    <time dateTime={new Date(at).toISOString()} translate="no">
      {children}
    </time>
  );
}
