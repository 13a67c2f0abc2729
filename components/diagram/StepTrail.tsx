import { useLocale, useTranslations } from "next-intl";
import { LIFELINES } from "@/lib/lesson/card";
import type { LessonDiagram, LessonLifeline } from "@/lib/lesson/model";
import { ARROW_STYLES, CURRENT_STROKE, lifelineColour } from "@/components/theme";
import type { ElementPicker } from "@/components/questions/picker";
import { CardStepTag } from "@/components/classroom/StepHeader";
import { stepNumber } from "@/lib/lesson/stepNumbers";

/**
 * The sequence so far as a list, for a phone: the full diagram shrunk to 360
 * pixels would need pinch-zoom, this reads at arm's length. Same rule as the
 * diagram: only steps that have happened are shown.
 */
export function StepTrail({
  scenario,
  stepIndex,
  picker,
  captionLang,
}: {
  scenario: Pick<LessonDiagram, "steps"> & { lifelines?: readonly LessonLifeline[] };
  stepIndex: number;
  picker?: ElementPicker;
  /**
   * The language of the step titles and lifeline names: the built-in lesson's are the card's printed labels ("CREATE
   * PVC", "Control plane"), English in every language ("en"); a teacher's are as written (unset). Neither is translated.
   */
  captionLang?: string;
}) {
  const t = useTranslations("diagram");
  // Chrome beside the lesson's words is in the reader's language, also inside a list marked as the lesson's English.
  const locale = useLocale();
  // Names in their lifeline's colour, the same colour as the drawing's heads (a teacher's lifelines too).
  const lifelines = scenario.lifelines ?? LIFELINES;
  const names: Record<string, string> = Object.fromEntries(lifelines.map((l) => [l.id, l.name]));
  const colours: Record<string, string> = Object.fromEntries(lifelines.map((l, i) => [l.id, lifelineColour(l, i)]));
  return (
    <ol className="space-y-1.5" aria-label={t("trail")} data-testid="step-trail">
      {scenario.steps.slice(0, stepIndex + 1).map((step, i) => {
        const current = i === stepIndex;
        const row = `flex items-center gap-3 rounded-lg px-2 py-1.5 ${current ? "step-enter bg-yellow-300/10 ring-1 ring-yellow-300/60" : ""}`;
        const asked = picker?.counts.get(`step:${i}`) ?? 0;
        const selected = picker?.selected === `step:${i}`;
        // Numbered in the order the class watches; the card's number beside it where the mode moved the step.
        const { ordinal, card } = stepNumber(scenario.steps, i);
        const content = (
          <>
            <span
              className={`flex h-7 w-7 shrink-0 items-center justify-center rounded-full border-2 text-sm font-bold ${
                current ? "border-yellow-300 bg-yellow-300 text-slate-950" : "border-slate-500 text-slate-100"
              }`}
              data-testid="trail-number"
            >
              {ordinal}
            </span>
            <span className="min-w-0 flex-1">
              <span className={`block font-bold ${step.failed ? "text-rose-300" : current ? "text-yellow-100" : "text-slate-100"}`}>
                <span lang={captionLang} translate="no">
                  {step.title}
                </span>
                {step.noop && <span lang={locale}> {t("nothingToWrite")}</span>}
                {step.failed && <span lang={locale}> {t("fails")}</span>}
                {card !== null && (
                  <>
                    {" "}
                    <CardStepTag card={card} className="text-sm font-normal" />
                  </>
                )}
              </span>
              <span className="block text-sm text-slate-300">
                <span style={{ color: colours[step.from] }} lang={captionLang} translate="no">
                  {names[step.from]}
                </span>
                {step.from === step.to ? <span lang={locale}> {t("itself")}</span> : " → "}
                {step.from !== step.to && (
                  <span style={{ color: colours[step.to] }} lang={captionLang} translate="no">
                    {names[step.to]}
                  </span>
                )}
              </span>
            </span>
            {asked > 0 && (
              <span
                className="shrink-0 rounded-full bg-amber-400 px-2 text-sm font-extrabold text-slate-950"
                data-testid="question-marker"
                data-element={`step:${i}`}
                data-count={asked}
              >
                {asked}
                <span className="sr-only" lang={locale}>
                  {" "}
                  {t("questionsHere", { count: asked })}
                </span>
              </span>
            )}
            <ArrowSample step={step} current={current} />
          </>
        );
        if (picker) {
          // A step in the list is a button: tapping it puts the step in focus for a question.
          return (
            <li key={`${step.label}-${i}`} aria-current={current ? "step" : undefined}>
              <button
                type="button"
                className={`${row} w-full text-start ${selected ? "outline outline-2 outline-sky-400" : ""}`}
                aria-pressed={selected}
                data-testid="diagram-element"
                data-element={`step:${i}`}
                onClick={() => picker.onSelect({ kind: "step", stepIndex: i })}
              >
                {content}
              </button>
            </li>
          );
        }
        return (
          <li key={`${step.label}-${i}`} aria-current={current ? "step" : undefined} className={row}>
            {content}
          </li>
        );
      })}
    </ol>
  );
}

/** The step's arrow in the legend's style, small. */
function ArrowSample({ step, current }: { step: LessonDiagram["steps"][number]; current: boolean }) {
  const style = ARROW_STYLES[step.kind];
  return (
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
  );
}
