"use client";

import { useId, useLayoutEffect, useRef, useState } from "react";
import { LIFELINES } from "@/lib/lesson/card";
import { LIFELINE_IDS, isLifelineId, type LifelineId, type Scenario, type ScenarioStep } from "@/lib/lesson/types";
import { ARROW_STYLES, BINDING_NOTE_STYLE, CURRENT_STROKE, LIFELINE_COLOURS, NOTE_STYLE } from "@/components/theme";
import { CurrentArrowPulse, Markers, markerId } from "./SequenceDiagram";
import { QuestionCallout, type ShownQuestion } from "@/components/questions/ProjectorQuestion";

/**
 * The sequence diagram for the projector. The console's and phones' diagram
 * is a fixed 1000-unit drawing that is scaled to fit; scaled into a 16:9
 * screen it used 46% of the width with 11 px type. This one is laid out in
 * the screen's own pixels: it measures its box, sets type in `rem` (the
 * projector's root size follows the screen, see globals.css), measures each
 * text with the real font, and spreads the rows over the height it has.
 * Nothing is wrapped by guesswork, so nothing spills out of its box.
 */

interface Size {
  width: number;
  height: number;
  /** CSS px per rem on this page. */
  rem: number;
  family: string;
}

export type Measure = (text: string, px: number, weight?: number) => number;

function useBoxSize(): [React.RefObject<HTMLDivElement | null>, Size | null] {
  const ref = useRef<HTMLDivElement | null>(null);
  const [size, setSize] = useState<Size | null>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const read = () => {
      const rect = el.getBoundingClientRect();
      const rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
      const family = getComputedStyle(el).fontFamily || "sans-serif";
      setSize((prev) =>
        prev && Math.abs(prev.width - rect.width) < 0.5 && Math.abs(prev.height - rect.height) < 0.5 && prev.rem === rem
          ? prev
          : { width: Math.floor(rect.width), height: Math.floor(rect.height), rem, family },
      );
    };
    read();
    const observer = new ResizeObserver(read);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, size];
}

function measurer(family: string): Measure {
  const canvas = typeof document !== "undefined" ? document.createElement("canvas") : null;
  const ctx = canvas?.getContext("2d") ?? null;
  return (text, px, weight = 400) => {
    if (!ctx) return text.length * px * 0.62;
    ctx.font = `${weight} ${px}px ${family}`;
    return ctx.measureText(text).width;
  };
}

/** Words into lines no wider than `max`; a word too wide breaks after its hyphens ("kube-" / "scheduler"). */
export function wrapTo(text: string, max: number, px: number, weight: number, measure: Measure): string[] {
  const lines: string[] = [];
  let line = "";
  const pieces = text
    .split(" ")
    .flatMap((word) => (measure(word, px, weight) > max ? word.split(/(?<=-)/).map((p, i) => (i ? `\u0000${p}` : p)) : [word]));
  for (const piece of pieces) {
    // A piece marked \u0000 continues the word before it (no space between them).
    const joined = piece.startsWith("\u0000");
    const word = joined ? piece.slice(1) : piece;
    const candidate = line ? `${line}${joined ? "" : " "}${word}` : word;
    if (line && measure(candidate, px, weight) > max) {
      lines.push(line);
      line = word;
    } else line = candidate;
  }
  if (line) lines.push(line);
  return lines;
}

function stepLabel(step: ScenarioStep): string {
  return `${step.title}${step.noop ? " (nothing to write)" : ""}${step.failed ? " ✕ fails" : ""}`;
}

interface RowLayout {
  step: ScenarioStep;
  top: number;
  height: number;
  y: number;
  label: { x: number; y: number; anchor: "start" | "middle" | "end" };
  path: string;
  note: { x: number; y: number; width: number; lines: string[] } | null;
}

function layout(scenario: Scenario, size: Size, measure: Measure) {
  const u = size.rem;
  const W = size.width;
  const H = size.height;
  const font = { label: 1.05 * u, badge: 0.875 * u, name: 1.0 * u, role: 0.875 * u, note: 0.875 * u, number: 0.875 * u };
  const line = (px: number) => px * 1.22;
  const radius = 0.75 * u;
  const left = radius * 2 + 0.5 * u;
  const colW = (W - left - 4) / LIFELINE_IDS.length;
  const column = new Map(LIFELINE_IDS.map((id, i) => [id, left + colW * (i + 0.5)]));
  const xOf = (id: LifelineId): number => column.get(id) ?? 0;
  const boxW = colW - 0.5 * u;
  const inner = boxW - 0.6 * u;

  // Lifeline heads: badge and name on one line when they fit, the role wrapped below.
  const heads = LIFELINES.map((l) => {
    const together = measure(`${l.badge}  ${l.name}`, font.name, 700) <= inner;
    const nameLines = together ? [] : wrapTo(l.name, inner, font.name, 700, measure);
    const roleLines = wrapTo(l.role, inner, font.role, 400, measure);
    return { l, together, nameLines, roleLines };
  });
  const headLines = Math.max(
    ...heads.map((h) => (h.together ? 1 : 1 + h.nameLines.length) * line(font.name) + h.roleLines.length * line(font.role)),
  );
  const headH = headLines + 0.7 * u;
  const top = headH + 0.4 * u;

  // Notes sit on their arrow's row, to the right of the arrow and its label; a long one wraps and the row grows.
  const steps = scenario.steps;
  const minRow = line(font.label) + 0.9 * u;
  const loopW = 1.6 * u;
  const drafts = steps.map((step) => {
    const labelText = stepLabel(step);
    const labelW = measure(labelText, font.label, 700);
    const x1 = xOf(step.from);
    const x2 = xOf(step.to);
    let labelX: number;
    let anchor: "start" | "middle" | "end";
    let rightEdge: number;
    let loopSide = 1;
    if (step.from === step.to) {
      // A self-call near the right edge loops and labels to the left, so its label stays on screen.
      loopSide = x1 + loopW + 0.5 * u + labelW > W - 4 ? -1 : 1;
      labelX = x1 + loopSide * (loopW + 0.4 * u);
      anchor = loopSide === 1 ? "start" : "end";
      rightEdge = loopSide === 1 ? labelX + labelW : x1 + 4;
    } else {
      const mid = (x1 + x2) / 2;
      labelX = Math.min(Math.max(mid, left + labelW / 2), W - 4 - labelW / 2);
      anchor = "middle";
      rightEdge = Math.max(x1, x2, labelX + labelW / 2);
    }
    let note: { x: number; width: number; lines: string[]; below: boolean } | null = null;
    if (step.note) {
      const pad = 0.4 * u;
      const longestWord = Math.max(...step.note.split(" ").map((w) => measure(w, font.note)));
      const besideX = rightEdge + 0.6 * u;
      const room = W - 4 - besideX - 2 * pad;
      // Beside the arrow when there is room for more than a word a line; otherwise under it, as wide as the drawing allows.
      const below = room < Math.max(longestWord, 7 * u);
      const maxText = below ? W - 4 - left - 2 * pad : room;
      const lines = wrapTo(step.note, maxText, font.note, 400, measure);
      const width = Math.max(...lines.map((l) => measure(l, font.note))) + 2 * pad;
      const x = below ? Math.max(left, Math.min(Math.min(x1, x2) - 0.5 * u, W - 4 - width)) : besideX;
      note = { x, width, lines, below };
    }
    const noteH = note ? note.lines.length * line(font.note) + 0.5 * u : 0;
    const need = note?.below ? minRow + noteH + 0.4 * u : Math.max(minRow, noteH + 0.3 * u);
    return { step, labelX, anchor, loopSide, note, need };
  });
  const available = H - top - 4;
  const even = available / steps.length;
  // Rows share the height; a row whose note needs more takes it from the others.
  const extra = drafts.reduce((sum, d) => sum + Math.max(0, d.need - even), 0);
  const base = Math.min(3.2 * u, Math.max(minRow, (available - extra) / steps.length));
  let cursor = top;
  const rows: RowLayout[] = drafts.map((d) => {
    const height = Math.max(base, d.need);
    const rowTop = cursor;
    cursor += height;
    const belowH = d.note?.below ? d.note.lines.length * line(font.note) + 0.9 * u : 0;
    const y = rowTop + Math.max((height - belowH) * 0.6, line(font.label) + 0.15 * u);
    const x1 = xOf(d.step.from);
    const x2 = xOf(d.step.to);
    let path: string;
    if (d.step.from === d.step.to) {
      const h = Math.min(0.5 * u, height * 0.25);
      const s = d.loopSide;
      path = `M${x1 + s * 4},${y - h} H${x1 + s * loopW} V${y + h} H${x1 + s * 8}`;
    } else {
      const dir = x2 > x1 ? 1 : -1;
      path = `M${x1 + dir * 6},${y} H${x2 - dir * 8}`;
    }
    const selfLoop = d.step.from === d.step.to;
    const labelY = selfLoop ? y + font.label * 0.35 : y - 0.35 * u;
    const noteTop = d.note?.below
      ? y + 0.4 * u + (selfLoop ? 0.3 * u : 0)
      : y - (d.note ? (d.note.lines.length * line(font.note) + 0.5 * u) / 2 : 0);
    return {
      step: d.step,
      top: rowTop,
      height,
      y,
      label: { x: d.labelX, y: labelY, anchor: d.anchor },
      path,
      note: d.note ? { ...d.note, y: Math.max(rowTop + 2, noteTop) } : null,
    };
  });
  return { rows, headH, heads, xOf, boxW, font, line, radius, totalHeight: Math.max(H, cursor + 4) };
}

export function ProjectorDiagram({
  scenario,
  stepIndex,
  question,
}: {
  scenario: Scenario;
  stepIndex: number;
  /** The question the teacher put on the projector: drawn beside its element. */
  question?: ShownQuestion | null;
}) {
  const [ref, size] = useBoxSize();
  const prefix = useId().replace(/:/g, "");
  const current = scenario.steps[stepIndex];
  return (
    <div ref={ref} className="h-full w-full" data-testid="projector-diagram">
      {size && size.width > 0 && size.height > 0 && (
        <Drawing
          scenario={scenario}
          stepIndex={stepIndex}
          size={size}
          prefix={prefix}
          question={question ?? null}
          title={`Sequence diagram, ${scenario.title}: step ${stepIndex + 1} of ${scenario.steps.length}${current ? `, ${current.label} ${current.title}` : ""}`}
        />
      )}
    </div>
  );
}

function Drawing({
  scenario,
  stepIndex,
  size,
  prefix,
  title,
  question,
}: {
  scenario: Scenario;
  stepIndex: number;
  size: Size;
  prefix: string;
  title: string;
  question: ShownQuestion | null;
}) {
  const measure = measurer(size.family);
  const { rows, headH, heads, xOf, boxW, font, line, radius, totalHeight } = layout(scenario, size, measure);
  const u = size.rem;
  return (
    <svg
      // One unit is one CSS pixel while the drawing fits; if it ever cannot, it scales down instead of spilling.
      viewBox={`0 0 ${size.width} ${totalHeight}`}
      width={size.width}
      height={size.height}
      role="img"
      aria-labelledby={`${prefix}title ${prefix}desc`}
      data-testid="sequence-diagram"
      style={{ display: "block" }}
    >
      <title id={`${prefix}title`}>{title}</title>
      <desc id={`${prefix}desc`}>
        {scenario.steps
          .slice(0, stepIndex + 1)
          .map((s) => `${s.label} ${s.title}: ${s.narration}`)
          .join(" ")}
      </desc>
      <Markers prefix={prefix} />
      {heads.map(({ l, together, nameLines, roleLines }) => {
        const cx = xOf(l.id);
        let y = 0.35 * u + font.name;
        return (
          <g key={l.id}>
            <line x1={cx} x2={cx} y1={headH} y2={totalHeight - 4} stroke="#475569" strokeWidth="2" strokeDasharray="3 6" />
            <rect
              x={cx - boxW / 2}
              y={2}
              width={boxW}
              height={headH - 4}
              rx={12}
              fill="#111a2e"
              stroke={LIFELINE_COLOURS[l.id]}
              strokeWidth="2"
            />
            {together ? (
              <text x={cx} y={y} textAnchor="middle" fontSize={font.name} fontWeight="700">
                <tspan fill={LIFELINE_COLOURS[l.id]}>{l.badge}</tspan>
                <tspan fill="#f1f5f9">{`  ${l.name}`}</tspan>
              </text>
            ) : (
              <>
                <text x={cx} y={y} textAnchor="middle" fontSize={font.name} fontWeight="700" fill={LIFELINE_COLOURS[l.id]}>
                  {l.badge}
                </text>
                {nameLines.map((t) => {
                  y += line(font.name);
                  return (
                    <text key={t} x={cx} y={y} textAnchor="middle" fontSize={font.name} fontWeight="700" fill="#f1f5f9">
                      {t}
                    </text>
                  );
                })}
              </>
            )}
            {roleLines.map((t, i) => (
              <text key={t} x={cx} y={y + (i + 1) * line(font.role)} textAnchor="middle" fontSize={font.role} fill="#cbd5e1">
                {t}
              </text>
            ))}
          </g>
        );
      })}
      {rows.map((row, i) => {
        if (i > stepIndex) return null;
        const { step } = row;
        const isCurrent = i === stepIndex;
        const style = ARROW_STYLES[step.kind];
        const colour = step.failed ? "#fb7185" : isCurrent ? CURRENT_STROKE : style.stroke;
        const noteStyle = step.kind === "binding" ? BINDING_NOTE_STYLE : NOTE_STYLE;
        return (
          <g
            key={`${step.label}-${i}`}
            className={isCurrent ? "step-enter" : undefined}
            data-step-label={step.label}
            data-current={isCurrent || undefined}
            opacity={step.noop && !isCurrent ? 0.6 : 1}
          >
            {isCurrent && (
              <rect x={2} y={row.top + 2} width={size.width - 4} height={row.height - 4} rx={10} fill="#facc15" opacity={0.12} />
            )}
            <circle cx={radius + 4} cy={row.y} r={radius} fill={isCurrent ? CURRENT_STROKE : "#1e293b"} stroke={colour} strokeWidth="2" />
            <text
              x={radius + 4}
              y={row.y + font.number * 0.36}
              textAnchor="middle"
              fontSize={font.number}
              fontWeight="700"
              fill={isCurrent ? "#0b1220" : "#f1f5f9"}
            >
              {step.label}
            </text>
            <path
              d={row.path}
              fill="none"
              stroke={colour}
              strokeWidth={style.width + (isCurrent ? 1.5 : 0.5)}
              strokeDasharray={step.noop ? "2 6" : style.dash}
              markerEnd={`url(#${markerId(prefix, step.kind, isCurrent)})`}
            />
            {isCurrent && !step.noop && <CurrentArrowPulse d={row.path} width={style.width} />}
            <text
              x={row.label.x}
              y={row.label.y}
              textAnchor={row.label.anchor}
              fontSize={font.label}
              fontWeight="700"
              fill={step.failed ? "#fda4af" : isCurrent ? "#fef08a" : "#e2e8f0"}
              paintOrder="stroke"
              stroke="#0b1220"
              strokeWidth="5"
              data-testid="diagram-label"
            >
              {stepLabel(step)}
            </text>
            {row.note && (
              <g data-testid="diagram-note">
                <rect
                  x={row.note.x}
                  y={row.note.y}
                  width={row.note.width}
                  height={row.note.lines.length * line(font.note) + 0.5 * u}
                  rx={6}
                  fill={noteStyle.fill}
                  stroke={noteStyle.stroke}
                />
                {row.note.lines.map((t, n) => (
                  <text
                    key={n}
                    x={row.note!.x + 0.4 * u}
                    y={row.note!.y + 0.25 * u + (n + 1) * line(font.note) - font.note * 0.25}
                    fontSize={font.note}
                    fill="#f8fafc"
                  >
                    {t}
                  </text>
                ))}
              </g>
            )}
          </g>
        );
      })}
      {question && (
        <QuestionCallout
          question={question}
          anchor={questionAnchor(question, rows, xOf, headH, radius, stepIndex)}
          width={size.width}
          height={totalHeight}
          top={headH}
          rem={u}
          measure={measure}
        />
      )}
    </svg>
  );
}

/** The point of the drawing a question is about, or null when that part is not drawn (a later step, another scenario). */
function questionAnchor(
  question: ShownQuestion,
  rows: RowLayout[],
  xOf: (id: LifelineId) => number,
  headH: number,
  radius: number,
  stepIndex: number,
): { x: number; y: number } | null {
  if (!question.sameScenario) return null;
  const { target } = question;
  // The built-in projector draws the card's five lifelines only.
  if (target.kind === "lifeline") return isLifelineId(target.lifeline) ? { x: xOf(target.lifeline), y: headH } : null;
  const row = rows[target.stepIndex];
  if (!row || target.stepIndex > stepIndex) return null;
  if (target.kind === "step") return { x: radius + 4, y: row.y };
  if (target.kind === "note" && row.note) return { x: row.note.x + row.note.width / 2, y: row.note.y };
  const { from, to } = row.step;
  return { x: from === to ? xOf(from) + 8 : (xOf(from) + xOf(to)) / 2, y: row.y };
}
