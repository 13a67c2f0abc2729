"use client";

import type { Scenario } from "@/lib/lesson/types";

/** Per-step "under the hood" expanders: what the card simplifies at this step. */
export function LessonPanels({ scenario, stepIndex }: { scenario: Scenario; stepIndex: number; audience: "host" | "projector" | "student" }) {
  const step = scenario.steps[stepIndex];
  if (!step?.underTheHood?.length) return null;
  return (
    <section aria-labelledby="hood-heading" className="rounded-xl border border-slate-700 bg-slate-900/60 p-3">
      <h3 id="hood-heading" className="font-semibold">
        Under the hood: {step.title}
      </h3>
      {step.underTheHood.map((u) => (
        <details key={u.title} className="mt-2">
          <summary className="cursor-pointer text-sky-200">{u.title}</summary>
          <p className="mt-1 whitespace-pre-line text-slate-300">{u.body}</p>
        </details>
      ))}
    </section>
  );
}
