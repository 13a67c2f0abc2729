"use client";

import { useEffect, useRef, type KeyboardEvent as ReactKeyboardEvent } from "react";
import { useTranslations } from "next-intl";
import { focusIfLost, keyBelongsTo } from "./focus";
import type { LessonDiagram } from "@/lib/lesson/model";
import { useSend } from "@/components/live/LiveSession";
import { CardStepTag } from "@/components/classroom/StepHeader";
import { stepNumber } from "@/lib/lesson/stepNumbers";

/** Previous / next, a clickable list of every step, and the keyboard: Right/Space next, Left previous, Home/End. */
export function StepControls({
  scenario,
  stepIndex,
  disabled,
  hideFuture,
  titleWords,
}: {
  scenario: Pick<LessonDiagram, "steps">;
  stepIndex: number;
  disabled?: boolean;
  /** While the class predicts the next step, later steps show their number only. */
  hideFuture?: boolean;
  /** Whose words the step titles are: the built-in lesson's (English names) or a teacher's own (never translated). */
  titleWords?: { lang?: string; translate?: "no" };
}) {
  const t = useTranslations("console");
  const classroom = useTranslations("classroom");
  const send = useSend();
  const last = scenario.steps.length - 1;
  // The card step in words that make sense in a tooltip on their own, as CardStepTag reads it aloud.
  const cardSpoken = (card: number) =>
    `${classroom("cardStep", { card })} (${classroom.markup("cardOrderNote", { k8s: (chunks) => chunks })})`;

  useEffect(() => {
    if (disabled) return;
    function onKey(e: KeyboardEvent) {
      if (e.altKey || e.ctrlKey || e.metaKey || e.defaultPrevented) return;
      // Keys that belong to the focused control (a field, tabs, a radio group, the step list) do not step the class.
      if (keyBelongsTo(e.target, e.key)) return;
      switch (e.key) {
        case "ArrowRight":
          e.preventDefault();
          void send("step:move", { delta: 1 });
          break;
        case " ":
          e.preventDefault();
          void send("step:move", { delta: 1 });
          break;
        case "ArrowLeft":
          e.preventDefault();
          void send("step:move", { delta: -1 });
          break;
        case "Home":
          e.preventDefault();
          void send("step:go", { stepIndex: 0 });
          break;
        case "End":
          e.preventDefault();
          void send("step:go", { stepIndex: last });
          break;
      }
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [send, last, disabled]);

  const prevRef = useRef<HTMLButtonElement>(null);
  const nextRef = useRef<HTMLButtonElement>(null);
  const listRef = useRef<HTMLOListElement>(null);
  // At either end the button just pressed is disabled: focus moves to the other one instead of the page body.
  const mounted = useRef(false);
  useEffect(() => {
    // Not on the first render: opening the console does not pull focus.
    if (!mounted.current) {
      mounted.current = true;
      return;
    }
    if (stepIndex === last) focusIfLost(prevRef.current);
    else if (stepIndex === 0) focusIfLost(nextRef.current);
  }, [stepIndex, last]);

  /** Roving focus in the step list: arrows, Home and End move between steps; Enter or Space goes there. */
  function onListKey(e: ReactKeyboardEvent<HTMLOListElement>) {
    const buttons = Array.from(listRef.current?.querySelectorAll<HTMLButtonElement>("button") ?? []);
    const active = document.activeElement;
    const at = active instanceof HTMLButtonElement ? buttons.indexOf(active) : -1;
    if (at < 0) return;
    const to =
      e.key === "ArrowRight" || e.key === "ArrowDown"
        ? at + 1
        : e.key === "ArrowLeft" || e.key === "ArrowUp"
          ? at - 1
          : e.key === "Home"
            ? 0
            : e.key === "End"
              ? buttons.length - 1
              : null;
    if (to === null) return;
    e.preventDefault();
    buttons[Math.max(0, Math.min(buttons.length - 1, to))]?.focus();
  }

  return (
    <div className="space-y-3" id="step-controls">
      <div className="flex flex-wrap items-center gap-3">
        <button
          ref={prevRef}
          type="button"
          data-testid="prev-step"
          disabled={disabled || stepIndex === 0}
          // The second click of a double-click is ignored: it would skip the step the class is predicting.
          onClick={(e) => e.detail < 2 && void send("step:move", { delta: -1 })}
          className="rounded-lg border border-slate-500 px-5 py-3 text-lg font-semibold hover:bg-slate-800 disabled:opacity-40"
          aria-keyshortcuts="ArrowLeft"
        >
          {t("previous")}
        </button>
        <button
          ref={nextRef}
          type="button"
          id="next-step"
          data-testid="next-step"
          disabled={disabled || stepIndex === last}
          onClick={(e) => e.detail < 2 && void send("step:move", { delta: 1 })}
          className="rounded-lg bg-sky-400 px-6 py-3 text-lg font-semibold text-slate-950 hover:bg-sky-300 disabled:opacity-40"
          aria-keyshortcuts="ArrowRight Space"
        >
          {t("next")}
        </button>
        <p className="text-sm text-slate-400">{t("keys")}</p>
      </div>
      <nav aria-label={t("stepList")}>
        <ol className="flex flex-wrap gap-2" data-testid="step-list" data-own-keys="" ref={listRef} onKeyDown={onListKey}>
          {scenario.steps.map((s, i) => {
            // Numbered in the order this mode runs; the card's number beside it where the mode moved the step.
            const { ordinal, card } = stepNumber(scenario.steps, i);
            // While the class votes, a later step shows its place only: its name, or its card number, is the answer.
            const hidden = hideFuture && i > stepIndex;
            return (
              <li key={`${s.label}-${i}`}>
                <button
                  type="button"
                  disabled={disabled}
                  onClick={() => void send("step:go", { stepIndex: i })}
                  // One Tab stop for the whole list: the current step's button.
                  tabIndex={i === stepIndex ? 0 : -1}
                  aria-current={i === stepIndex ? "step" : undefined}
                  data-testid="step-jump"
                  data-index={i}
                  data-ordinal={ordinal}
                  title={
                    hidden
                      ? undefined
                      : card === null
                        ? t("stepTitle", { step: ordinal, title: s.title })
                        : t("stepTitleCard", { step: ordinal, title: s.title, card: cardSpoken(card) })
                  }
                  aria-label={hidden ? t("stepHidden", { step: ordinal }) : undefined}
                  className={`rounded-md border px-2.5 py-1.5 text-sm font-semibold ${
                    i === stepIndex
                      ? "border-yellow-300 bg-yellow-300 text-slate-950"
                      : i < stepIndex
                        ? "border-slate-500 bg-slate-800 text-slate-100"
                        : "border-slate-700 text-slate-300"
                  } ${s.failed ? "ring-1 ring-rose-400" : ""}`}
                >
                  <span data-testid="step-jump-number">{ordinal}</span>
                  {hidden ? "" : " "}
                  {!hidden && <span {...titleWords}>{s.title}</span>}
                  {!hidden && card !== null && (
                    <>
                      {" "}
                      <CardStepTag card={card} className="ml-0.5 text-[0.8125rem] font-medium" onLight={i === stepIndex} />
                    </>
                  )}
                </button>
              </li>
            );
          })}
        </ol>
      </nav>
    </div>
  );
}
