"use client";

import { useLocale, useMessages } from "next-intl";
import { useMemo } from "react";
import { localizeScenario, proseCatalog, type LocalizedScenario, type ProseCatalog } from "@/lib/lesson/localize";
import { getScenario, type VersionedScenario } from "@/lib/lesson/scenarios";
import type { BindingMode, Scenario, VariantId } from "@/lib/lesson/types";
import type { KubeVersion } from "@/lib/lesson/versions";
import { pollTextCatalog, type PollTextCatalog } from "@/lib/polls/pollProse";

/**
 * The built-in lesson in the reader's language (issue 32): narration, speaker
 * notes, notes, "under the hood", fidelity notes, scenario titles and
 * summaries from messages/lesson/{locale}.json, looked up by their English
 * (lib/lesson/proseKey.ts). A language that has not translated a sentence
 * shows it in English, and `langOf` says so, for a lang="en" mark. Kubernetes
 * strings are the same bytes in every language.
 */

/** The page's lesson catalog; one object per page language, so what is built from it is memoised too. */
export function useLessonProse(): ProseCatalog {
  const locale = useLocale();
  const messages = useMessages();
  return useMemo(() => proseCatalog(locale, messages), [locale, messages]);
}

/** A scenario already in hand (getScenario's, or a replay's) in the reader's language. */
export function useLocalizedScenario<S extends Scenario>(scenario: S): LocalizedScenario<S> {
  const catalog = useLessonProse();
  return localizeScenario(scenario, catalog);
}

/** The built-in scenario for a mode, variant and release, its prose in the reader's language. */
export function useScenario(mode: BindingMode, variant?: VariantId, version?: KubeVersion): LocalizedScenario<VersionedScenario> {
  return useLocalizedScenario(getScenario(mode, variant, version));
}

/**
 * A poll's words (question, option texts, each option's note after the reveal) in the reader's
 * language. The server sends English; a text the built-in lesson does not say comes back as it is.
 */
export function usePollText(): PollTextCatalog {
  const prose = useLessonProse();
  const messages = useMessages();
  return useMemo(() => pollTextCatalog(prose, messages), [prose, messages]);
}
