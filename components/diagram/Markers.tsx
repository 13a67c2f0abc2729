import type { ArrowKind } from "@/lib/lesson/types";
import type { LessonStep } from "@/lib/lesson/model";
import { ARROW_STYLES, CURRENT_STROKE } from "@/components/theme";
import { keysOf } from "@/lib/guards";

/** Arrowheads: the legend's four kinds, each plain and current, and Mermaid's cross. Ids carry a per-diagram prefix. */

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
export function endMarker(prefix: string, step: LessonStep, current: boolean): string | undefined {
  const head = step.arrow?.head;
  if (head === "none") return undefined;
  if (head === "cross") return `url(#${prefix}head-cross${current ? "-current" : ""})`;
  const kind: ArrowKind = head === "async" ? "watch" : head === "filled" ? "request" : step.kind;
  return `url(#${markerId(prefix, kind, current)})`;
}

/** The moving dashes along the current step's arrow (still under prefers-reduced-motion: see globals.css). */
export function CurrentArrowPulse({ d, width }: { d: string; width: number }) {
  return <path d={d} fill="none" stroke="#fff7cc" strokeWidth={width} strokeDasharray="3 21" className="arrow-current" opacity={0.9} />;
}
