import { targetKey, type ClassQuestion } from "@/lib/session/questions";
import type { QuestionTarget } from "@/lib/session/types";
import { wrapTo, type Measure } from "@/components/diagram/measure";
import { MIN_TYPE_REM } from "@/components/diagram/geometry";
import type { Placement } from "@/components/diagram/placement";

/** The question on the projector, and whether its element is in the lesson on screen. */
export interface ShownQuestion extends ClassQuestion {
  target: QuestionTarget;
  sameScenario: boolean;
  /**
   * The callout's header in the screen's language: "Question · Step 7 · APPEND THE EVENT, arrow · ▲ 3", named from
   * the lesson on screen (a teacher's lesson names its own steps).
   */
  header: string;
  /** The same without the step's title ("Question · Step 7, arrow · ▲ 3"), for when the long one takes too many lines. */
  shortHeader: string;
}

/** The callout's text, wrapped to its width: its size is known before it is placed. */
export interface CalloutText {
  width: number;
  height: number;
  pad: number;
  /** Between the header and the question. */
  between: number;
  header: string;
  head: { px: number; line: number; lines: string[] };
  body: { px: number; line: number; lines: string[] };
}

/** The callout's widths to try, widest first: a narrower, taller one may find free space a wide one cannot. */
export function calloutWidths(drawingWidth: number, u: number): number[] {
  return [...new Set([28, 22, 17].map((w) => Math.min(drawingWidth * 0.45, w * u)))];
}

/**
 * The callout's type sizes to try, largest first: a smaller callout is
 * tried only when the drawing has no free space for the larger one. The
 * smallest still sets the question at 1 rem and its header at the
 * drawing's floor (20 px on a 1920x1080 projector).
 */
export const CALLOUT_SCALES = [1, 0.85, 0.72] as const;

/**
 * Type read from the back of the room (the projector's rem follows the screen): 1.4 rem for the question, 0.95 rem
 * for what it is about, both times `scale`, never below `minPx`.
 */
export function calloutText(
  question: ShownQuestion,
  width: number,
  u: number,
  measure: Measure,
  scale = 1,
  minPx = MIN_TYPE_REM * u,
): CalloutText {
  const pad = 0.6 * u * scale;
  const headPx = Math.max(minPx, 0.95 * u * scale);
  const bodyPx = Math.max(minPx, 1.4 * u * scale);
  const head = { px: headPx, line: headPx * 1.25 };
  const body = { px: bodyPx, line: bodyPx * 1.22 };
  let header = question.header;
  let headLines = wrapTo(header, width - 2 * pad, head.px, 700, measure);
  // A long step title is on the drawing already: the header then says only which step and element.
  if (headLines.length > 2) {
    header = question.shortHeader;
    headLines = wrapTo(header, width - 2 * pad, head.px, 700, measure);
  }
  const lines = wrapTo(question.text, width - 2 * pad, body.px, 700, measure);
  const between = 0.3 * u * scale;
  const height = pad + headLines.length * head.line + between + lines.length * body.line + pad;
  return { width, height, pad, between, header, head: { ...head, lines: headLines }, body: { ...body, lines } };
}

/** A student's words are shown as written: never translated (SVG's types lack the HTML attribute; browsers honour it). */
const STUDENTS_WORDS = { translate: "no" };

/**
 * The question the teacher shows, drawn on the projector's diagram beside
 * the element it is about (placed in free space by the diagram, never over
 * the current arrow), with a line to it. When its element is not drawn (a
 * later step, another scenario) it sits in a free corner and its header
 * says which step it is about.
 */
export function QuestionCallout({
  question,
  text,
  at,
  rem: u,
}: {
  question: ShownQuestion;
  text: CalloutText;
  /** Where it goes, and the point of its element its line starts from (null when the element is not drawn). */
  at: Placement;
  rem: number;
}) {
  const { x, y, point: anchor } = at;
  return (
    <g
      data-testid="projector-question"
      data-question-id={question.id}
      data-element={targetKey(question.target)}
      data-anchored={!!anchor}
      role="note"
      aria-label={`${text.header}: ${question.text}`}
    >
      {anchor && at.edge && (
        <>
          <line x1={anchor.x} y1={anchor.y} x2={at.edge.x} y2={at.edge.y} stroke="#fbbf24" strokeWidth={4} />
          <circle cx={anchor.x} cy={anchor.y} r={0.4 * u} fill="#fbbf24" stroke="#0b1220" strokeWidth={2} />
        </>
      )}
      <rect x={x} y={y} width={text.width} height={text.height} rx={14} fill="#1c1917" stroke="#fbbf24" strokeWidth={4} />
      <g>
        {text.head.lines.map((t, i) => (
          <text
            key={`h${i}`}
            x={x + text.pad}
            y={y + text.pad + (i + 0.8) * text.head.line}
            fontSize={text.head.px}
            fontWeight={700}
            fill="#fcd34d"
          >
            {t}
          </text>
        ))}
      </g>
      <g {...STUDENTS_WORDS}>
        {text.body.lines.map((t, i) => (
          <text
            key={`b${i}`}
            x={x + text.pad}
            y={y + text.pad + text.head.lines.length * text.head.line + text.between + (i + 0.8) * text.body.line}
            fontSize={text.body.px}
            fontWeight={700}
            fill="#ffffff"
          >
            {t}
          </text>
        ))}
      </g>
    </g>
  );
}
