"use client";

import { useEffect } from "react";
import type { Scenario } from "@/lib/lesson/types";
import { useSend } from "@/components/live/LiveSession";

const TYPING = new Set(["INPUT", "TEXTAREA", "SELECT"]);

/** Previous / next, a clickable list of every step, and the keyboard: Right/Space next, Left previous, Home/End. */
export function StepControls({ scenario, stepIndex, disabled }: { scenario: Scenario; stepIndex: number; disabled?: boolean }) {
  const send = useSend();
  const last = scenario.steps.length - 1;

  useEffect(() => {
    if (disabled) return;
    function onKey(e: KeyboardEvent) {
      if (e.altKey || e.ctrlKey || e.metaKey || e.defaultPrevented) return;
      const target = e.target as HTMLElement | null;
      if (target && (TYPING.has(target.tagName) || target.isContentEditable)) return;
      // Space on a focused button or summary activates it; do not also step.
      const onControl = target && (target.tagName === "BUTTON" || target.tagName === "SUMMARY" || target.tagName === "A");
      switch (e.key) {
        case "ArrowRight":
          e.preventDefault();
          void send("step:move", { delta: 1 });
          break;
        case " ":
          if (onControl) return;
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

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-3">
        <button
          type="button"
          data-testid="prev-step"
          disabled={disabled || stepIndex === 0}
          // The second click of a double-click is ignored: it would skip the step the class is predicting.
          onClick={(e) => e.detail < 2 && void send("step:move", { delta: -1 })}
          className="rounded-lg border border-slate-500 px-5 py-3 text-lg font-semibold hover:bg-slate-800 disabled:opacity-40"
          aria-keyshortcuts="ArrowLeft"
        >
          ← Previous
        </button>
        <button
          type="button"
          data-testid="next-step"
          disabled={disabled || stepIndex === last}
          onClick={(e) => e.detail < 2 && void send("step:move", { delta: 1 })}
          className="rounded-lg bg-sky-400 px-6 py-3 text-lg font-semibold text-slate-950 hover:bg-sky-300 disabled:opacity-40"
          aria-keyshortcuts="ArrowRight Space"
        >
          Next →
        </button>
        <p className="text-sm text-slate-400">Keys: → or Space next, ← previous, Home / End.</p>
      </div>
      <nav aria-label="Go to step">
        <ol className="flex flex-wrap gap-2" data-testid="step-list">
          {scenario.steps.map((s, i) => (
            <li key={`${s.label}-${i}`}>
              <button
                type="button"
                disabled={disabled}
                onClick={() => void send("step:go", { stepIndex: i })}
                aria-current={i === stepIndex ? "step" : undefined}
                data-testid="step-jump"
                data-index={i}
                title={`${s.label} ${s.title}`}
                className={`rounded-md border px-2.5 py-1.5 text-sm font-semibold ${
                  i === stepIndex
                    ? "border-yellow-300 bg-yellow-300 text-slate-950"
                    : i < stepIndex
                      ? "border-slate-500 bg-slate-800 text-slate-100"
                      : "border-slate-700 text-slate-300"
                } ${s.failed ? "ring-1 ring-rose-400" : ""}`}
              >
                {s.label} {s.title}
              </button>
            </li>
          ))}
        </ol>
      </nav>
    </div>
  );
}
