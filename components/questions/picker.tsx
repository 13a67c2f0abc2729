import { useTranslations } from "next-intl";
import { useCallback, type KeyboardEvent } from "react";
import { targetKey } from "@/lib/session/questions";
import type { QuestionTarget } from "@/lib/session/types";

/**
 * Tapping a part of the diagram (an arrow, a lifeline, a note, a step in the
 * list) puts it in focus for a question, and each part shows how many
 * questions the class has asked about it. The diagram and the step list take
 * one of these; without it they are pictures, as before.
 */
export interface ElementPicker {
  /** targetKey of the element in focus. */
  selected: string | null;
  onSelect(target: QuestionTarget): void;
  /** Questions the student can see, per targetKey (this scenario only). */
  counts: ReadonlyMap<string, number>;
}

/** A part's name as a button: "Arrow of step 3, …, 2 questions: ask about it", in the reader's language. */
export type AskLabel = (label: string, questions: number) => string;

export function useAskLabel(): AskLabel {
  const t = useTranslations("diagram");
  return useCallback((label, count) => (count ? t("askCounted", { label, count }) : t("ask", { label })), [t]);
}

/** What makes an SVG part a button: focusable, Enter and Space, pressed while in focus, named with its question count. */
export function pickable(picker: ElementPicker | undefined, target: QuestionTarget, label: string, ask: AskLabel) {
  if (!picker) return {};
  const key = targetKey(target);
  const n = picker.counts.get(key) ?? 0;
  return {
    role: "button",
    tabIndex: 0,
    "aria-label": ask(label, n),
    "aria-pressed": picker.selected === key,
    "data-testid": "diagram-element",
    "data-element": key,
    style: { cursor: "pointer" },
    onClick: () => picker.onSelect(target),
    onKeyDown: (e: KeyboardEvent) => {
      if (e.key !== "Enter" && e.key !== " ") return;
      e.preventDefault();
      picker.onSelect(target);
    },
  } as const;
}

/** The small count on an element the class has asked about (drawn in SVG units). */
export function QuestionMarker({
  picker,
  target,
  x,
  y,
}: {
  picker: ElementPicker | undefined;
  target: QuestionTarget;
  x: number;
  y: number;
}) {
  const key = targetKey(target);
  const n = picker?.counts.get(key) ?? 0;
  if (!n) return null;
  return (
    <g data-testid="question-marker" data-element={key} data-count={n} aria-hidden="true" pointerEvents="none">
      <circle cx={x} cy={y} r={12} fill="#fbbf24" stroke="#0b1220" strokeWidth={2} />
      <text x={x} y={y + 5} textAnchor="middle" fontSize={14} fontWeight={800} fill="#0b1220">
        {n > 9 ? "9+" : n}
      </text>
    </g>
  );
}

/** The outline of the element in focus. */
export const SELECTED_STROKE = "#38bdf8";
