"use client";

import { useTranslations } from "next-intl";
import { useCallback } from "react";
import { LIFELINES } from "@/lib/lesson/card";
import { getScenario, isVariantOf } from "@/lib/lesson/scenarios";
import type { ClassQuestion, LessonNames } from "@/lib/session/questions";

const LIFELINE_NAMES: Record<string, string> = Object.fromEntries(LIFELINES.map((l) => [l.id, l.name]));

/**
 * What a question is about, in the reader's language: "Step 5 · NODE CHOSEN,
 * arrow". The words around it are the catalog's; the step's title and the
 * lifeline's name are the lesson's own. English reads exactly as
 * `describeTarget` in lib/session/questions.ts, which the console and the
 * exports still use.
 */
export function useDescribeTarget(lesson?: LessonNames) {
  const t = useTranslations("questions");
  return useCallback(
    (q: Pick<ClassQuestion, "mode" | "variant" | "target">): string => {
      const index = q.target.stepIndex;
      const step = lesson ? lesson.steps[index] : isVariantOf(q.mode, q.variant) ? getScenario(q.mode, q.variant).steps[index] : undefined;
      const stepName = step ? t("stepTitled", { step: index + 1, title: step.title }) : t("step", { step: index + 1 });
      const target = q.target;
      if (target.kind === "step") return stepName;
      if (target.kind !== "lifeline") return t("element", { step: stepName, kind: target.kind });
      const name = lesson ? lesson.lifelines.find((l) => l.id === target.lifeline)?.name : LIFELINE_NAMES[target.lifeline];
      return t("lifeline", { step: stepName, name: name ?? target.lifeline });
    },
    [t, lesson],
  );
}
