"use client";

import { memo, useId, useMemo } from "react";
import { useTranslations } from "next-intl";
import { useStepHeading } from "./useStepHeading";
import type { LessonDiagram } from "@/lib/lesson/model";
import type { ElementPicker } from "@/components/questions/picker";
import { CALLOUT_SCALES, QuestionCallout, calloutText, calloutWidths, type ShownQuestion } from "@/components/questions/ProjectorQuestion";
import { layoutDiagram } from "./layout";
import { measurer } from "./measure";
import { chooseCallout, drawnParts, liveParts, placeCallout, questionAnchor } from "./placement";
import { useBoxSize, type BoxSize } from "./useBoxSize";
import { Markers } from "./Markers";
import { LifelineHead, StepRow } from "./DiagramParts";

/** The narrowest a growing drawing is laid out, in rem (40 rem: 640 px on a laptop). */
const MIN_WIDTH_REM = 40;

export interface SequenceDiagramProps {
  /** Any lesson in the one model: the built-in scenario on the card's lifelines, or a teacher's own. */
  scenario: Pick<LessonDiagram, "title" | "steps" | "lifelines">;
  stepIndex: number;
  /**
   * "width" (console, phone, replay, editor): as wide as its box, as tall as
   * the lesson needs. "screen" (the projector): fills its box, width and
   * height, legible from the back row.
   */
  fit?: "width" | "screen";
  /** For the box the drawing is laid out in (it needs a width, and a height to fill on a screen). */
  className?: string;
  /** Students: arrows, lifelines, notes and step numbers become buttons that put the part in focus for a question. */
  picker?: ElementPicker;
  /** The question the teacher shows on the projector: drawn beside its element. */
  question?: ShownQuestion | null;
}

/**
 * The sequence diagram, the one renderer of every view and every lesson:
 * lifelines, the steps so far as arrows (the legend's kinds for the card,
 * Mermaid's for a teacher's lesson), the current one highlighted. Future
 * steps are not drawn at all: they are what the class is asked to predict.
 *
 * It is laid out in the page's own pixels (./layout.ts): it measures its box,
 * sets type in rem (the projector's rem follows the screen), measures every
 * text with the real font, and wraps what is long. So the same drawing is
 * legible on a projector, a laptop and a phone's sideways-scrolling view.
 */
export const SequenceDiagram = memo(function SequenceDiagram({
  scenario,
  stepIndex,
  fit = "width",
  className,
  picker,
  question,
}: SequenceDiagramProps) {
  const [ref, box] = useBoxSize(fit === "screen");
  // Unique per diagram: a page may show two (a phone's folded full view), and ids must not repeat.
  const prefix = useId().replace(/:/g, "");
  const ready = box && box.width > 0 && (fit === "width" || box.height > 0);
  return (
    <div ref={ref} className={className}>
      {ready && (
        <Drawing
          scenario={scenario}
          stepIndex={stepIndex}
          fit={fit}
          box={box}
          prefix={prefix}
          picker={picker}
          question={question ?? null}
        />
      )}
    </div>
  );
});

function Drawing({
  scenario,
  stepIndex,
  fit,
  box,
  prefix,
  picker,
  question,
}: Required<Pick<SequenceDiagramProps, "scenario" | "stepIndex" | "fit">> & {
  box: BoxSize;
  prefix: string;
  picker?: ElementPicker;
  question: ShownQuestion | null;
}) {
  const t = useTranslations("diagram");
  const stepHeading = useStepHeading();
  const measure = measurer(box.family);
  // Keyed on the lesson's parts, not the lesson object: a view builds that object afresh on every snapshot.
  const { lifelines, steps } = scenario;
  const layout = useMemo(
    () =>
      layoutDiagram(
        { lifelines, steps },
        // Narrower than a small laptop (a console on a phone), it is laid out at that width and scaled down whole,
        // rather than wrapping every name letter by letter.
        {
          width: fit === "screen" ? box.width : Math.max(box.width, MIN_WIDTH_REM * box.rem),
          height: fit === "screen" ? box.height : null,
          rem: box.rem,
        },
        stepIndex,
        measure,
      ),
    [lifelines, steps, box, fit, stepIndex, measure],
  );
  const u = box.rem;
  const callout = useMemo(() => {
    if (!question) return null;
    const anchor = question.sameScenario ? questionAnchor(question.target, layout, stepIndex) : null;
    const drawn = drawnParts(layout, stepIndex, anchor);
    const live = liveParts(layout, stepIndex, 0.3 * u);
    const bounds = { x: 4, y: 4, width: layout.width - 8, height: layout.height - 8 };
    // Each type size at its widths; a smaller one only when the larger finds no free space.
    const tiers = CALLOUT_SCALES.map((scale) =>
      calloutWidths(layout.width, u).map((width) => calloutText(question, width * scale, u, measure, scale, layout.font.min)),
    );
    const chosen = chooseCallout(tiers, (size) => placeCallout({ size, anchor, bounds, drawn, live, gap: 1.2 * u }));
    return chosen && { text: chosen.size, at: chosen.at };
  }, [question, layout, stepIndex, u, measure]);
  const current = scenario.steps[stepIndex];
  const screen = fit === "screen";
  return (
    <svg
      // One unit is one CSS pixel while the drawing fits; if it ever cannot, it scales down instead of spilling.
      viewBox={`0 0 ${layout.width} ${layout.height}`}
      width={layout.width}
      height={screen ? box.height : layout.height}
      // With parts to tap it is a group of buttons; without, one picture.
      role={picker ? "group" : "img"}
      aria-labelledby={`${prefix}title ${prefix}desc`}
      data-testid="sequence-diagram"
      style={screen ? { display: "block" } : { display: "block", width: "100%", height: "auto" }}
    >
      <title id={`${prefix}title`}>
        {current
          ? t("titleAt", {
              title: scenario.title,
              step: stepIndex + 1,
              total: scenario.steps.length,
              heading: stepHeading(scenario.steps, stepIndex),
            })
          : t("title", { title: scenario.title, step: stepIndex + 1, total: scenario.steps.length })}
      </title>
      <desc id={`${prefix}desc`}>
        {scenario.steps
          .slice(0, stepIndex + 1)
          .map((s, i) => `${stepHeading(scenario.steps, i)}: ${s.narration}`)
          .join(" ")}
      </desc>
      <Markers prefix={prefix} />
      <g aria-hidden="true">
        {layout.heads.map((h) => (
          <line
            key={h.lifeline.id}
            x1={h.x}
            x2={h.x}
            y1={layout.headBottom}
            y2={layout.height - 4}
            stroke="#475569"
            strokeWidth="2"
            strokeDasharray="3 6"
          />
        ))}
      </g>
      {layout.heads.map((h) => (
        <LifelineHead key={h.lifeline.id} head={h} picker={picker} stepIndex={stepIndex} />
      ))}
      {layout.rows.map((row) =>
        row.index > stepIndex ? null : (
          <StepRow
            key={`${row.step.label}-${row.index}`}
            row={row}
            stepIndex={stepIndex}
            width={layout.width}
            prefix={prefix}
            numberPx={layout.font.number}
            picker={picker}
          />
        ),
      )}
      {question && callout && <QuestionCallout question={question} text={callout.text} at={callout.at} rem={u} />}
    </svg>
  );
}
