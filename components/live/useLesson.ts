"use client";

import { useMemo } from "react";
import { builtInDiagram, customDiagram, type LessonDiagram } from "@/lib/lesson/model";
import { getScenario } from "@/lib/lesson/scenarios";
import type { Scenario } from "@/lib/lesson/types";
import type { PublicSnapshot } from "@/lib/session/views";
import { useLocalizedScenario } from "@/components/i18n/useScenario";
import { useLive } from "./LiveSession";

/**
 * The lesson a live view draws: the teacher's (sent once in the welcome, so
 * late joiners and reconnects get it too) or the built-in scenario of the
 * current mode, in the session's Kubernetes release, its prose in the reader's
 * language (components/i18n/useScenario.ts). `custom` says whether the
 * Kubernetes-only panels apply.
 */
export function useLessonDiagram(snapshot: Pick<PublicSnapshot, "mode" | "variant" | "kubeVersion">): {
  diagram: LessonDiagram;
  scenario: Scenario;
  custom: boolean;
  /**
   * The language of the lesson's own words: the reader's where the built-in lesson is translated,
   * "en" where it is not; undefined for a teacher's lesson, which is in whatever language its teacher wrote.
   */
  lessonLang: string | undefined;
  /** The language of one of the built-in scenario's strings (a partly translated language mixes). */
  langOf: (text: string | undefined) => string | undefined;
} {
  const lesson = useLive((s) => s.welcome?.lesson);
  // The release the class runs: every event, object and note as that release prints it.
  const localized = useLocalizedScenario(getScenario(snapshot.mode, snapshot.variant, snapshot.kubeVersion));
  const { scenario } = localized;
  // One object per scenario and language, so the drawing's memoisation holds across renders.
  const builtIn = useMemo(() => builtInDiagram(scenario), [scenario]);
  if (lesson) return { diagram: customDiagram(lesson.lesson), scenario, custom: true, lessonLang: undefined, langOf: () => undefined };
  return { diagram: builtIn, scenario, custom: false, lessonLang: localized.lang ?? "en", langOf: localized.langOf };
}

/** A teacher's lesson's steps and lifelines, to name what a question is about; undefined for the built-in lesson. */
export function useCustomLesson(): LessonDiagram | undefined {
  const lesson = useLive((s) => s.welcome?.lesson);
  return useMemo(() => (lesson ? customDiagram(lesson.lesson) : undefined), [lesson]);
}
