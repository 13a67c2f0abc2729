"use client";

import { useMemo } from "react";
import { builtInDiagram, customDiagram, type LessonDiagram } from "@/lib/lesson/model";
import { getScenario } from "@/lib/lesson/scenarios";
import type { Scenario } from "@/lib/lesson/types";
import type { PublicSnapshot } from "@/lib/session/views";
import { useLive } from "./LiveSession";

/**
 * The lesson a live view draws: the teacher's (sent once in the welcome, so
 * late joiners and reconnects get it too) or the built-in scenario of the
 * current mode, in the session's Kubernetes release. `custom` says whether the Kubernetes-only panels apply.
 */
export function useLessonDiagram(snapshot: Pick<PublicSnapshot, "mode" | "variant" | "kubeVersion">): {
  diagram: LessonDiagram;
  scenario: Scenario;
  custom: boolean;
} {
  const lesson = useLive((s) => s.welcome?.lesson);
  // The release the class runs: every event, object and note as that release prints it.
  const scenario = getScenario(snapshot.mode, snapshot.variant, snapshot.kubeVersion);
  if (lesson) return { diagram: customDiagram(lesson.lesson), scenario, custom: true };
  return { diagram: builtInDiagram(scenario), scenario, custom: false };
}

/** A teacher's lesson's steps and lifelines, to name what a question is about; undefined for the built-in lesson. */
export function useCustomLesson(): LessonDiagram | undefined {
  const lesson = useLive((s) => s.welcome?.lesson);
  return useMemo(() => (lesson ? customDiagram(lesson.lesson) : undefined), [lesson]);
}
