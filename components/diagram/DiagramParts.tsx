import { ARROW_STYLES, BINDING_NOTE_STYLE, CURRENT_STROKE, NOTE_STYLE } from "@/components/theme";
import { targetKey } from "@/lib/session/questions";
import { useTranslations } from "next-intl";
import { QuestionMarker, SELECTED_STROKE, pickable, useAskLabel, type ElementPicker } from "@/components/questions/picker";
import type { HeadLayout, RowLayout, TextBlock } from "./layout";
import { CurrentArrowPulse, endMarker } from "./Markers";

/** The parts of the drawing, drawn where the layout says: a lifeline's head and one step's row. */

const TONE_FILL = { name: "#f1f5f9", role: "#cbd5e1" } as const;

/**
 * `translate="no"` for a drawing's text: a lifeline's name and role and a step's title are the card's labels ("Control
 * plane", "CREATE PVC") or the teacher's words, shown as written in every language. (React's SVG types lack the
 * global HTML attribute; the browser and translation tools read it on SVG too.)
 */
const AS_WRITTEN: Record<string, string> = { translate: "no" };

/** Lines of a text block as one <text> (one box to measure, one thing for a screen reader to skip). */
function Lines({ block, ...rest }: { block: TextBlock } & React.SVGProps<SVGTextElement>) {
  return (
    <text x={block.x} y={block.baseline} textAnchor={block.anchor} fontSize={block.px} {...rest}>
      {block.lines.map((line, i) => (
        <tspan key={i} x={block.x} y={block.baseline + i * block.lineHeight}>
          {line}
        </tspan>
      ))}
    </text>
  );
}

export function LifelineHead({ head, picker, stepIndex }: { head: HeadLayout; picker?: ElementPicker; stepIndex: number }) {
  const { lifeline: l, box, colour } = head;
  const target = { kind: "lifeline" as const, stepIndex, lifeline: l.id };
  const selected = picker?.selected === targetKey(target);
  const t = useTranslations("diagram");
  const ask = useAskLabel();
  return (
    <>
      <g data-lifeline={l.id} {...pickable(picker, target, t("lifeline", { name: l.name }), ask)}>
        <rect
          x={box.x}
          y={box.y}
          width={box.width}
          height={box.height}
          rx={12}
          fill="#111a2e"
          stroke={selected ? SELECTED_STROKE : colour}
          strokeWidth={selected ? 5 : 2}
        />
        {head.lines.map((line, i) => (
          <text
            key={i}
            {...AS_WRITTEN}
            x={head.x}
            y={line.y}
            textAnchor="middle"
            fontSize={line.px}
            fontWeight={line.tone === "role" ? 400 : 700}
            fill={line.tone === "badge" ? colour : TONE_FILL[line.tone]}
          >
            {line.badge ? (
              <>
                <tspan fill={colour}>{line.badge}</tspan>
                {line.text}
              </>
            ) : (
              line.text
            )}
          </text>
        ))}
      </g>
      <QuestionMarker picker={picker} target={target} x={box.x + box.width - 6} y={box.y + 10} />
    </>
  );
}

export function StepRow({
  row,
  stepIndex,
  width,
  prefix,
  numberPx,
  picker,
}: {
  row: RowLayout;
  stepIndex: number;
  /** The drawing's width: the current step's band spans it. */
  width: number;
  prefix: string;
  numberPx: number;
  picker?: ElementPicker;
}) {
  const { step, index: i } = row;
  const t = useTranslations("diagram");
  const ask = useAskLabel();
  const isCurrent = i === stepIndex;
  const style = ARROW_STYLES[step.kind];
  const colour = step.failed ? "#fb7185" : isCurrent ? CURRENT_STROKE : style.stroke;
  // A teacher's arrow is Mermaid's (dotted or solid); the card's follows its legend.
  const dash = step.noop ? "2 6" : step.arrow ? (step.arrow.line === "dotted" ? "7 5" : undefined) : style.dash;
  const strokeWidth = style.width + (isCurrent ? 1.5 : 0.5);
  const noteStyle = step.kind === "binding" ? BINDING_NOTE_STYLE : NOTE_STYLE;
  const stepTarget = { kind: "step" as const, stepIndex: i };
  const arrowTarget = { kind: "arrow" as const, stepIndex: i };
  const noteTarget = { kind: "note" as const, stepIndex: i };
  const { cx, cy, r } = row.number;
  // The column counts in the order drawn (Immediate too reads 1, 2, 3 …); the card's number is the step's identity
  // (data-step-label) and is said with the number where the mode moved the step. The column has no room to print it:
  // the header above the drawing shows it.
  const ordinal = i + 1;
  const card = step.label !== ordinal ? step.label : null;
  return (
    <g
      className={isCurrent ? "step-enter" : undefined}
      data-step-label={step.label}
      data-current={isCurrent || undefined}
      opacity={step.noop && !isCurrent ? 0.6 : 1}
    >
      {isCurrent && <rect x={2} y={row.top + 2} width={width - 4} height={row.height - 4} rx={10} fill="#facc15" opacity={0.12} />}
      <g
        {...pickable(
          picker,
          stepTarget,
          card ? t("stepCard", { step: ordinal, title: step.title, card }) : t("step", { step: ordinal, title: step.title }),
          ask,
        )}
      >
        <title>{card ? t("stepNumberCard", { step: ordinal, card }) : t("stepNumber", { step: ordinal })}</title>
        <circle
          data-testid="step-number"
          cx={cx}
          cy={cy}
          r={r}
          fill={isCurrent ? CURRENT_STROKE : "#1e293b"}
          stroke={picker?.selected === targetKey(stepTarget) ? SELECTED_STROKE : colour}
          strokeWidth={picker?.selected === targetKey(stepTarget) ? 5 : 2}
        />
        <text
          x={cx}
          y={cy + numberPx * 0.36}
          textAnchor="middle"
          fontSize={numberPx}
          fontWeight="700"
          fill={isCurrent ? "#0b1220" : "#f1f5f9"}
          data-testid="step-number-text"
          data-card-step={step.label !== ordinal ? step.label : undefined}
        >
          {ordinal}
        </text>
      </g>
      <QuestionMarker picker={picker} target={stepTarget} x={cx + r} y={cy - r} />
      <g {...pickable(picker, arrowTarget, t("arrow", { step: i + 1, title: step.title }), ask)}>
        {picker?.selected === targetKey(arrowTarget) && (
          <path d={row.path} fill="none" stroke={SELECTED_STROKE} strokeWidth={style.width + 8} opacity={0.55} strokeLinecap="round" />
        )}
        {/* A wide invisible band: a finger does not have to hit a 3-pixel line. */}
        {picker && <path d={row.path} fill="none" stroke="transparent" strokeWidth={26} pointerEvents="stroke" />}
        <path
          data-testid="diagram-arrow"
          d={row.path}
          fill="none"
          stroke={colour}
          strokeWidth={strokeWidth}
          strokeDasharray={dash}
          markerEnd={endMarker(prefix, step, isCurrent)}
        />
        {isCurrent && !step.noop && <CurrentArrowPulse d={row.path} width={style.width} />}
        <Lines
          block={row.label}
          {...AS_WRITTEN}
          data-testid="diagram-label"
          fontWeight="700"
          fill={step.failed ? "#fda4af" : isCurrent ? "#fef08a" : "#e2e8f0"}
          paintOrder="stroke"
          stroke="#0b1220"
          strokeWidth="5"
        />
      </g>
      <QuestionMarker picker={picker} target={arrowTarget} {...row.arrowMarker} />
      {row.note && (
        <g data-testid="diagram-note" {...pickable(picker, noteTarget, t("note", { step: i + 1 }), ask)}>
          <rect
            {...row.note.frame}
            rx={6}
            fill={noteStyle.fill}
            stroke={picker?.selected === targetKey(noteTarget) ? SELECTED_STROKE : noteStyle.stroke}
            strokeWidth={picker?.selected === targetKey(noteTarget) ? 4 : 1}
          />
          <Lines block={row.note} fill="#f8fafc" />
          <QuestionMarker picker={picker} target={noteTarget} x={row.note.frame.x + row.note.frame.width - 10} y={row.note.frame.y + 2} />
        </g>
      )}
    </g>
  );
}
