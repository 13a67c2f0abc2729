import { memo, useId } from "react";
import { LIFELINES } from "@/lib/lesson/card";
import type { ArrowKind, LifelineId } from "@/lib/lesson/types";
import type { LessonDiagram, LessonLifeline, LessonStep } from "@/lib/lesson/model";
import { ARROW_STYLES, BINDING_NOTE_STYLE, CURRENT_STROKE, LIFELINE_COLOURS, NOTE_STYLE } from "@/components/theme";
import { keysOf } from "@/lib/guards";
import { targetKey } from "@/lib/session/questions";
import { QuestionMarker, SELECTED_STROKE, pickable, type ElementPicker } from "@/components/questions/picker";

const WIDTH = 1000;
const HEADER_H = 96;
const TOP = HEADER_H + 24;
const ROW_H = 58;
const NOTE_LINE_H = 18;
const SELF_LOOP_W = 56;
const X: Record<LifelineId, number> = { you: 110, control: 300, scheduler: 490, csi: 680, node: 870 };
/** A teacher's lesson's lifelines: spread evenly, coloured in turn (the card's five keep their own places and colours). */
const EXTRA_COLOURS = [
  "#93c5fd",
  "#c4b5fd",
  "#fcd34d",
  "#6ee7b7",
  "#fda4af",
  "#67e8f9",
  "#f0abfc",
  "#bef264",
  "#fdba74",
  "#a5b4fc",
  "#5eead4",
  "#f9a8d4",
];
function columns(lifelines: readonly LessonLifeline[]): { x: Map<string, number>; colour: Map<string, string>; boxW: number } {
  const builtIn = lifelines === LIFELINES;
  const isCard = (id: string): id is LifelineId => Object.hasOwn(X, id);
  const gap = (WIDTH - 110) / Math.max(1, lifelines.length);
  const x = new Map(lifelines.map((l, i) => [l.id, builtIn && isCard(l.id) ? X[l.id] : Math.round(80 + gap / 2 + i * gap - 10)]));
  const colour = new Map(
    lifelines.map((l, i) => [l.id, builtIn && isCard(l.id) ? LIFELINE_COLOURS[l.id] : EXTRA_COLOURS[i % EXTRA_COLOURS.length]]),
  );
  return { x, colour, boxW: builtIn ? 168 : Math.min(168, gap - 8) };
}

function wrap(text: string, maxChars: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if ((line + " " + word).trim().length > maxChars && line) {
      lines.push(line);
      line = word;
    } else line = (line + " " + word).trim();
  }
  if (line) lines.push(line);
  return lines;
}

interface Row {
  step: LessonStep;
  y: number;
  noteLines: string[];
}

function layout(steps: readonly LessonStep[], noteChars: number): { rows: Row[]; height: number } {
  let y = TOP;
  const rows = steps.map((step) => {
    const noteLines = step.note ? wrap(step.note, noteChars) : [];
    const row = { step, y: y + 30, noteLines };
    y += ROW_H + (noteLines.length ? noteLines.length * NOTE_LINE_H + 14 : 0);
    return row;
  });
  return { rows, height: y + 16 };
}

export function markerId(prefix: string, kind: ArrowKind, current: boolean) {
  return `${prefix}head-${kind}${current ? "-current" : ""}`;
}

export function Markers({ prefix }: { prefix: string }) {
  const defs = [];
  for (const kind of keysOf(ARROW_STYLES)) {
    for (const current of [false, true]) {
      const style = ARROW_STYLES[kind];
      const colour = current ? CURRENT_STROKE : style.stroke;
      defs.push(
        <marker
          key={markerId(prefix, kind, current)}
          id={markerId(prefix, kind, current)}
          viewBox="0 0 12 12"
          refX="11"
          refY="6"
          markerWidth="9"
          markerHeight="9"
          markerUnits="userSpaceOnUse"
          orient="auto-start-reverse"
        >
          {style.head === "open" ? (
            <path d="M1,1 L11,6 L1,11" fill="none" stroke={colour} strokeWidth="2" />
          ) : (
            <path d="M0,0 L12,6 L0,12 z" fill={colour} />
          )}
        </marker>,
      );
    }
  }
  // A teacher's lesson draws Mermaid's own ends: a cross (-x) and an open async head (-)).
  for (const current of [false, true]) {
    const colour = current ? CURRENT_STROKE : ARROW_STYLES.request.stroke;
    defs.push(
      <marker
        key={`${prefix}cross${current}`}
        id={`${prefix}head-cross${current ? "-current" : ""}`}
        viewBox="0 0 12 12"
        refX="6"
        refY="6"
        markerWidth="11"
        markerHeight="11"
        markerUnits="userSpaceOnUse"
      >
        <path d="M1,1 L11,11 M11,1 L1,11" stroke={colour} strokeWidth="2.5" />
      </marker>,
    );
  }
  return <defs>{defs}</defs>;
}

/** The marker at the arrow's end: the legend's for the card, Mermaid's head for a teacher's lesson. */
function endMarker(prefix: string, step: LessonStep, current: boolean): string | undefined {
  const head = step.arrow?.head;
  if (head === "none") return undefined;
  if (head === "cross") return `url(#${prefix}head-cross${current ? "-current" : ""})`;
  const kind: ArrowKind = head === "async" ? "watch" : head === "filled" ? "request" : step.kind;
  return `url(#${markerId(prefix, kind, current)})`;
}

function arrowPath(
  step: LessonStep,
  y: number,
  x: Map<string, number>,
): { d: string; labelX: number; labelY: number; anchor: "middle" | "start" } {
  const x1 = x.get(step.from) ?? 0;
  const x2 = x.get(step.to) ?? 0;
  if (step.from === step.to) {
    const d = `M${x1 + 4},${y - 12} H${x1 + SELF_LOOP_W} V${y + 12} H${x1 + 8}`;
    return { d, labelX: x1 + SELF_LOOP_W + 12, labelY: y + 5, anchor: "start" };
  }
  const dir = x2 > x1 ? 1 : -1;
  return { d: `M${x1 + dir * 6},${y} H${x2 - dir * 8}`, labelX: (x1 + x2) / 2, labelY: y - 9, anchor: "middle" };
}

/** Where an arrow's question count sits: just past its head, below the line (beside a self-call's loop). */
function arrowMarker(step: LessonStep, y: number, x: Map<string, number>): { x: number; y: number } {
  const x1 = x.get(step.from) ?? 0;
  const x2 = x.get(step.to) ?? 0;
  if (step.from === step.to) return { x: x1 + SELF_LOOP_W + 2, y: y + 24 };
  const dir = x2 > x1 ? 1 : -1;
  return { x: x2 - dir * 30, y: y + 16 };
}

/** The moving dashes along the current step's arrow (still under prefers-reduced-motion: see globals.css). */
export function CurrentArrowPulse({ d, width }: { d: string; width: number }) {
  return <path d={d} fill="none" stroke="#fff7cc" strokeWidth={width} strokeDasharray="3 21" className="arrow-current" opacity={0.9} />;
}

export interface SequenceDiagramProps {
  /** The lesson: a built-in `Scenario` (drawn on the card's lifelines) or a teacher's lesson with its own. */
  scenario: Pick<LessonDiagram, "title" | "steps"> & { lifelines?: readonly LessonLifeline[] };
  stepIndex: number;
  /** Larger type for the projector. */
  large?: boolean;
  className?: string;
  /** Students: arrows, lifelines, notes and step numbers become buttons that put the part in focus for a question. */
  picker?: ElementPicker;
}

/**
 * The card as an SVG: five lifelines, the steps so far as arrows in the
 * legend's four kinds, the current one highlighted. Future steps are not
 * drawn at all: they are what the class is asked to predict.
 */
export const SequenceDiagram = memo(function SequenceDiagram({ scenario, stepIndex, large, className, picker }: SequenceDiagramProps) {
  // Unique per diagram: a page may show two (a phone's folded full view), and ids must not repeat.
  const prefix = useId().replace(/:/g, "");
  // The projector's type is larger: it is read from the back of the room.
  const type = large
    ? { label: 24, badge: 14, name: 22, role: 13, note: 17, noteChars: 38 }
    : { label: 17, badge: 13, name: 19, role: 12.5, note: 14.5, noteChars: 44 };
  const { rows, height } = layout(scenario.steps, type.noteChars);
  const lifelines = scenario.lifelines ?? LIFELINES;
  const { x: xOf, colour: colourOf, boxW } = columns(lifelines);
  const current = scenario.steps[stepIndex];
  const labelSize = type.label;
  return (
    <svg
      viewBox={`0 0 ${WIDTH} ${height}`}
      className={className}
      // With parts to tap it is a group of buttons; without, one picture.
      role={picker ? "group" : "img"}
      aria-labelledby={`${prefix}title ${prefix}desc`}
      data-testid="sequence-diagram"
    >
      <title id={`${prefix}title`}>
        {`Sequence diagram, ${scenario.title}: step ${stepIndex + 1} of ${scenario.steps.length}${current ? `, ${current.label} ${current.title}` : ""}`}
      </title>
      <desc id={`${prefix}desc`}>
        {scenario.steps
          .slice(0, stepIndex + 1)
          .map((s) => `${s.label} ${s.title}: ${s.narration}`)
          .join(" ")}
      </desc>
      <Markers prefix={prefix} />
      {lifelines.map((l) => {
        const lx = xOf.get(l.id) ?? 0;
        const colour = colourOf.get(l.id) ?? "#e2e8f0";
        const selected = picker?.selected === targetKey({ kind: "lifeline", stepIndex, lifeline: l.id });
        return (
          <g key={l.id} data-lifeline={l.id}>
            <line x1={lx} x2={lx} y1={HEADER_H} y2={height - 8} stroke="#475569" strokeWidth="2" strokeDasharray="3 6" />
            <g {...pickable(picker, { kind: "lifeline", stepIndex, lifeline: l.id }, `Lifeline ${l.name}`)}>
              <rect
                x={lx - boxW / 2}
                y={8}
                width={boxW}
                height={HEADER_H - 16}
                rx={12}
                fill="#111a2e"
                stroke={selected ? SELECTED_STROKE : colour}
                strokeWidth={selected ? 5 : 2}
              />
              {l.badge && (
                <text x={lx} y={32} textAnchor="middle" fill={colour} fontSize={type.badge} fontWeight="700" letterSpacing="2">
                  {l.badge}
                </text>
              )}
              <text
                x={lx}
                y={l.badge ? 56 : 58}
                textAnchor="middle"
                fill="#f1f5f9"
                fontSize={l.badge ? type.name : Math.min(type.name, (boxW / Math.max(6, l.name.length)) * 1.7)}
                fontWeight="700"
              >
                {l.name}
              </text>
              {l.role && (
                <text x={lx} y={77} textAnchor="middle" fill="#cbd5e1" fontSize={type.role}>
                  {l.role}
                </text>
              )}
            </g>
            <QuestionMarker picker={picker} target={{ kind: "lifeline", stepIndex, lifeline: l.id }} x={lx + boxW / 2 - 6} y={14} />
          </g>
        );
      })}
      {rows.map(({ step, y, noteLines }, i) => {
        if (i > stepIndex) return null;
        const isCurrent = i === stepIndex;
        const style = ARROW_STYLES[step.kind];
        const { d, labelX, labelY, anchor } = arrowPath(step, y, xOf);
        const dash = step.arrow ? (step.arrow.line === "dotted" ? "7 5" : undefined) : style.dash;
        const colour = step.failed ? "#fb7185" : isCurrent ? CURRENT_STROKE : style.stroke;
        const noteX = Math.min(
          Math.max(xOf.get(step.from) ?? 0, xOf.get(step.to) ?? 0) + (step.from === step.to ? SELF_LOOP_W + 30 : 30),
          WIDTH - 430,
        );
        return (
          <g
            key={`${step.label}-${i}`}
            className={isCurrent ? "step-enter" : undefined}
            data-step-label={step.label}
            data-current={isCurrent || undefined}
            opacity={step.noop && !isCurrent ? 0.6 : 1}
          >
            {isCurrent && <rect x={4} y={y - 30} width={WIDTH - 8} height={ROW_H - 2} rx={10} fill="#facc15" opacity={0.1} />}
            <g {...pickable(picker, { kind: "step", stepIndex: i }, `Step ${i + 1}, ${step.title}`)}>
              <circle
                cx={34}
                cy={y}
                r={16}
                fill={isCurrent ? CURRENT_STROKE : "#1e293b"}
                stroke={picker?.selected === `step:${i}` ? SELECTED_STROKE : colour}
                strokeWidth={picker?.selected === `step:${i}` ? 5 : 2}
              />
              <text x={34} y={y + 6} textAnchor="middle" fontSize="16" fontWeight="700" fill={isCurrent ? "#0b1220" : "#f1f5f9"}>
                {step.label}
              </text>
            </g>
            <QuestionMarker picker={picker} target={{ kind: "step", stepIndex: i }} x={52} y={y - 16} />
            <g {...pickable(picker, { kind: "arrow", stepIndex: i }, `Arrow of step ${i + 1}, ${step.title}`)}>
              {picker?.selected === `arrow:${i}` && (
                <path d={d} fill="none" stroke={SELECTED_STROKE} strokeWidth={style.width + 8} opacity={0.55} strokeLinecap="round" />
              )}
              {/* A wide invisible band: a finger does not have to hit a 3-pixel line. */}
              {picker && <path d={d} fill="none" stroke="transparent" strokeWidth={26} pointerEvents="stroke" />}
              <path
                d={d}
                fill="none"
                stroke={colour}
                strokeWidth={style.width + (isCurrent ? 1 : 0)}
                strokeDasharray={step.noop ? "2 6" : dash}
                markerEnd={endMarker(prefix, step, isCurrent)}
              />
              {isCurrent && !step.noop && <CurrentArrowPulse d={d} width={style.width} />}
              <text
                x={labelX}
                y={labelY}
                textAnchor={anchor}
                fontSize={labelSize}
                fontWeight="700"
                fill={step.failed ? "#fda4af" : isCurrent ? "#fef08a" : "#e2e8f0"}
                paintOrder="stroke"
                stroke="#0b1220"
                strokeWidth="5"
              >
                {step.title}
                {step.noop ? " (nothing to write)" : ""}
                {step.failed ? " ✕ fails" : ""}
              </text>
            </g>
            <QuestionMarker picker={picker} target={{ kind: "arrow", stepIndex: i }} {...arrowMarker(step, y, xOf)} />
            {noteLines.length > 0 && (
              <g {...pickable(picker, { kind: "note", stepIndex: i }, `Note of step ${i + 1}`)}>
                <rect
                  x={noteX}
                  y={y + 16}
                  width={410}
                  height={noteLines.length * NOTE_LINE_H + 12}
                  rx={6}
                  fill={(step.kind === "binding" ? BINDING_NOTE_STYLE : NOTE_STYLE).fill}
                  stroke={
                    picker?.selected === `note:${i}` ? SELECTED_STROKE : (step.kind === "binding" ? BINDING_NOTE_STYLE : NOTE_STYLE).stroke
                  }
                  strokeWidth={picker?.selected === `note:${i}` ? 4 : 1}
                />
                {noteLines.map((line, n) => (
                  <text key={n} x={noteX + 10} y={y + 32 + n * NOTE_LINE_H} fontSize={type.note} fill="#f8fafc">
                    {line}
                  </text>
                ))}
                <QuestionMarker picker={picker} target={{ kind: "note", stepIndex: i }} x={noteX + 398} y={y + 18} />
              </g>
            )}
          </g>
        );
      })}
    </svg>
  );
});
