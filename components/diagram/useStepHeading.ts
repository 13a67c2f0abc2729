"use client";

import { useTranslations } from "next-intl";
import { useCallback } from "react";
import { stepNumber } from "@/lib/lesson/stepNumbers";

/**
 * "2 PROVISION (card step 6)": a step as a heading names it, the number of its place in the order shown, its title,
 * and the card's number where the mode moved it, with the words around them in the reader's language
 * (lib/lesson/stepNumbers.ts's `stepHeading`, which the exports use, is English).
 */
export function useStepHeading() {
  const t = useTranslations("classroom");
  return useCallback(
    (steps: readonly { label: number; title: string }[], index: number): string => {
      const step = steps[index];
      if (!step) return "";
      const { ordinal, card } = stepNumber(steps, index);
      return `${ordinal} ${step.title}${card === null ? "" : ` (${t("cardStep", { card })})`}`;
    },
    [t],
  );
}
