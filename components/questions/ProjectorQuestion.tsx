import { describeTarget, targetKey, type ClassQuestion } from "@/lib/session/questions";
import type { QuestionTarget } from "@/lib/session/types";
import { wrapTo, type Measure } from "@/components/diagram/ProjectorDiagram";

/** The question on the projector, and whether its element is in the scenario on screen. */
export interface ShownQuestion extends ClassQuestion {
  target: QuestionTarget;
  sameScenario: boolean;
}

/**
 * The question the teacher shows, drawn on the projector's diagram beside
 * the element it is about (just below it, so the element stays in view),
 * with a line to it, in type read from the back of the room (the projector's rem follows the screen). When its element is
 * not drawn (a later step, another scenario), it sits top right and says
 * which step it is about.
 */
export function QuestionCallout({
  question,
  anchor,
  width: W,
  height: H,
  top,
  rem: u,
  measure,
}: {
  question: ShownQuestion;
  anchor: { x: number; y: number } | null;
  width: number;
  height: number;
  top: number;
  rem: number;
  measure: Measure;
}) {
  const boxW = Math.min(W * 0.45, 28 * u);
  const pad = 0.6 * u;
  const head = { px: 0.95 * u, line: 0.95 * u * 1.25 };
  const body = { px: 1.4 * u, line: 1.4 * u * 1.22 };
  const header = `Question · ${describeTarget(question)} · ▲ ${question.votes}${question.status === "answered" ? " · answered" : ""}`;
  const headLines = wrapTo(header, boxW - 2 * pad, head.px, 700, measure);
  const lines = wrapTo(question.text, boxW - 2 * pad, body.px, 700, measure);
  const boxH = pad + headLines.length * head.line + 0.3 * u + lines.length * body.line + pad;
  // Below its element (above when there is no room), so the arrow, its label or the note stays in view.
  const gap = 1.2 * u;
  const below = !anchor || anchor.y + gap + boxH <= H - 4;
  const x = anchor ? Math.min(Math.max(4, anchor.x - boxW / 2), W - boxW - 4) : W - boxW - 4;
  const y = anchor ? (below ? anchor.y + gap : Math.max(4, anchor.y - gap - boxH)) : Math.min(top + 0.5 * u, Math.max(4, H - boxH - 4));
  const edgeX = anchor ? Math.min(Math.max(anchor.x, x + 0.8 * u), x + boxW - 0.8 * u) : 0;
  const edgeY = below ? y : y + boxH;
  return (
    <g
      data-testid="projector-question"
      data-question-id={question.id}
      data-element={targetKey(question.target)}
      data-anchored={!!anchor}
      role="note"
      aria-label={`${header}: ${question.text}`}
    >
      {anchor && (
        <>
          <line x1={anchor.x} y1={anchor.y} x2={edgeX} y2={edgeY} stroke="#fbbf24" strokeWidth={4} />
          <circle cx={anchor.x} cy={anchor.y} r={0.4 * u} fill="#fbbf24" stroke="#0b1220" strokeWidth={2} />
        </>
      )}
      <rect x={x} y={y} width={boxW} height={boxH} rx={14} fill="#1c1917" stroke="#fbbf24" strokeWidth={4} />
      {headLines.map((t, i) => (
        <text key={`h${i}`} x={x + pad} y={y + pad + (i + 0.8) * head.line} fontSize={head.px} fontWeight={700} fill="#fcd34d">
          {t}
        </text>
      ))}
      {lines.map((t, i) => (
        <text
          key={`b${i}`}
          x={x + pad}
          y={y + pad + headLines.length * head.line + 0.3 * u + (i + 0.8) * body.line}
          fontSize={body.px}
          fontWeight={700}
          fill="#ffffff"
        >
          {t}
        </text>
      ))}
    </g>
  );
}
