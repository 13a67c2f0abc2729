import { LIFELINES } from "@/lib/lesson/card";
import type { LessonDiagram, LessonLifeline } from "@/lib/lesson/model";
import { ARROW_STYLES, CURRENT_STROKE, LIFELINE_COLOURS } from "@/components/theme";

const NAMES: Record<string, string> = Object.fromEntries(LIFELINES.map((l) => [l.id, l.name]));
const COLOURS: Record<string, string> = LIFELINE_COLOURS;

/**
 * The sequence so far as a list, for a phone: the full diagram shrunk to 360
 * pixels would need pinch-zoom, this reads at arm's length. Same rule as the
 * diagram: only steps that have happened are shown.
 */
export function StepTrail({
  scenario,
  stepIndex,
}: {
  scenario: Pick<LessonDiagram, "steps"> & { lifelines?: readonly LessonLifeline[] };
  stepIndex: number;
}) {
  const names = scenario.lifelines ? Object.fromEntries(scenario.lifelines.map((l) => [l.id, l.name])) : NAMES;
  return (
    <ol className="space-y-1.5" aria-label="Steps so far" data-testid="step-trail">
      {scenario.steps.slice(0, stepIndex + 1).map((step, i) => {
        const current = i === stepIndex;
        const style = ARROW_STYLES[step.kind];
        return (
          <li
            key={`${step.label}-${i}`}
            aria-current={current ? "step" : undefined}
            className={`flex items-center gap-3 rounded-lg px-2 py-1.5 ${current ? "step-enter bg-yellow-300/10 ring-1 ring-yellow-300/60" : ""}`}
          >
            <span
              className={`flex h-7 w-7 shrink-0 items-center justify-center rounded-full border-2 text-sm font-bold ${
                current ? "border-yellow-300 bg-yellow-300 text-slate-950" : "border-slate-500 text-slate-100"
              }`}
            >
              {step.label}
            </span>
            <span className="min-w-0 flex-1">
              <span className={`block font-bold ${step.failed ? "text-rose-300" : current ? "text-yellow-100" : "text-slate-100"}`}>
                {step.title}
                {step.noop ? " (nothing to write)" : ""}
                {step.failed ? " ✕ fails" : ""}
              </span>
              <span className="block text-sm text-slate-300">
                <span style={{ color: COLOURS[step.from] }}>{names[step.from]}</span>
                {step.from === step.to ? " (itself)" : " → "}
                {step.from !== step.to && <span style={{ color: COLOURS[step.to] }}>{names[step.to]}</span>}
              </span>
            </span>
            <svg width="40" height="12" aria-hidden="true" className="shrink-0">
              <line
                x1="2"
                y1="6"
                x2="32"
                y2="6"
                stroke={current ? CURRENT_STROKE : style.stroke}
                strokeWidth={style.width}
                strokeDasharray={step.noop ? "2 4" : style.dash}
              />
              <path
                d={style.head === "open" ? "M28,1 L38,6 L28,11" : "M28,0 L39,6 L28,12 z"}
                fill={style.head === "open" ? "none" : current ? CURRENT_STROKE : style.stroke}
                stroke={current ? CURRENT_STROKE : style.stroke}
                strokeWidth="2"
              />
            </svg>
          </li>
        );
      })}
    </ol>
  );
}
