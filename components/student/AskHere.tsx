"use client";

import { useTranslations } from "next-intl";
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type SyntheticEvent } from "react";
import { useCustomLesson } from "@/components/live/useLesson";
import { AskForm, askedReceipt } from "@/components/questions/StudentQuestions";
import { targetKey } from "@/lib/session/questions";
import { useDescribeTarget } from "@/components/i18n/useDescribeTarget";
import type { QuestionTarget } from "@/lib/session/types";
import type { PublicSnapshot } from "@/lib/session/views";

/**
 * The ask box beside the part of the diagram the student tapped. The
 * Questions section is far below the full drawing on a phone (about 700 px),
 * so a tap there used to change a line nobody could see: the box opens next
 * to the element, in view, with the cursor in it. Escape, Cancel or the close
 * button put focus back on the element.
 */

/** A tapped part of the diagram: an SVG group with role="button" or a step button in the list. */
export type AskAnchor = HTMLElement | SVGElement;

/** The diagram's pickable parts carry this hook (components/questions/picker.tsx and the step list). */
const PICKABLE = '[data-testid="diagram-element"]';

/**
 * Which element a pick came from. The picker tells only what was picked, so
 * the section around the drawings notes the element under each click or key
 * press on the way down (capture phase), before the element's own handler
 * reports the pick.
 */
export function useTappedElement() {
  const tapped = useRef<AskAnchor | null>(null);
  const note = useCallback((e: SyntheticEvent) => {
    const found = e.target instanceof Element ? e.target.closest(PICKABLE) : null;
    tapped.current = found instanceof HTMLElement || found instanceof SVGElement ? found : null;
  }, []);
  return { tapped, handlers: { onClickCapture: note, onKeyDownCapture: note } };
}

const MARGIN_PX = 8;
const GAP_PX = 10;

interface Rect {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

/**
 * Where the box goes, in viewport pixels: under the element if it fits on
 * screen, else above it, else as near as the screen allows; across, centred
 * on the element's visible part (an arrow can be wider than a phone) and kept
 * on screen. `caretX` is where the little pointer sits along the box's edge.
 */
export function placeAskBox(anchor: Rect, box: { width: number; height: number }, viewport: { width: number; height: number }) {
  const below = anchor.bottom + GAP_PX;
  const above = anchor.top - GAP_PX - box.height;
  const fitsBelow = below + box.height <= viewport.height - MARGIN_PX;
  const fitsAbove = above >= MARGIN_PX;
  const side: "below" | "above" = fitsBelow || !fitsAbove ? "below" : "above";
  const top = fitsBelow ? below : fitsAbove ? above : Math.max(MARGIN_PX, Math.min(below, viewport.height - MARGIN_PX - box.height));
  const visibleLeft = Math.max(anchor.left, 0);
  const visibleRight = Math.min(anchor.right, viewport.width);
  const centre = visibleRight > visibleLeft ? (visibleLeft + visibleRight) / 2 : viewport.width / 2;
  const left = Math.max(MARGIN_PX, Math.min(centre - box.width / 2, viewport.width - MARGIN_PX - box.width));
  const caretX = Math.max(16, Math.min(centre - left, box.width - 16));
  return { top, left, side, caretX };
}

export function AskHere({
  snapshot,
  target,
  anchor,
  onClose,
}: {
  snapshot: PublicSnapshot;
  target: QuestionTarget;
  anchor: AskAnchor;
  /** `returnFocus` is false when the element has gone (the drawing was folded, the step list changed): nothing to return to. */
  onClose: (returnFocus: boolean) => void;
}) {
  const t = useTranslations("questions");
  const common = useTranslations("common");
  const describeTarget = useDescribeTarget(useCustomLesson());
  const box = useRef<HTMLDivElement>(null);
  const caret = useRef<HTMLSpanElement>(null);
  const [receipt, setReceipt] = useState<string | null>(null);
  const key = targetKey(target);
  const name = describeTarget({ mode: snapshot.mode, variant: snapshot.variant, target });

  const close = useCallback(
    (returnFocus: boolean) => {
      onClose(returnFocus);
      // The element stays the same node while it is on screen; focus goes back to it so the student carries on from where they were.
      if (returnFocus && anchor.isConnected) anchor.focus({ preventScroll: true });
    },
    [anchor, onClose],
  );

  // Placed by hand, before paint: measured against the element each time it can have moved
  // (the drawing scrolled sideways, the page resized, the box grew with an error).
  const place = useCallback(() => {
    const el = box.current;
    const host = el?.offsetParent;
    if (!el || !host) return;
    const a = anchor.getBoundingClientRect();
    if (!anchor.isConnected || (a.width === 0 && a.height === 0)) return close(false);
    const h = host.getBoundingClientRect();
    const viewport = { width: document.documentElement.clientWidth, height: window.innerHeight };
    const p = placeAskBox(a, { width: el.offsetWidth, height: el.offsetHeight }, viewport);
    el.style.top = `${p.top - h.top}px`;
    el.style.left = `${p.left - h.left}px`;
    el.dataset.side = p.side;
    if (caret.current) caret.current.style.left = `${p.caretX - 8}px`;
  }, [anchor, close]);

  useLayoutEffect(() => {
    place();
  }, [place]);

  // Focus moves in when the box opens (a tap on another part opens a new box: StudentView keys it by the part).
  useLayoutEffect(() => {
    const field = box.current?.querySelector("textarea");
    field?.focus({ preventScroll: true });
    // A screen too short for the box (a phone on its side): bring what there is into view.
    const r = box.current?.getBoundingClientRect();
    if (r && (r.top < 0 || r.bottom > window.innerHeight)) box.current?.scrollIntoView({ block: "nearest" });
  }, []);

  useEffect(() => {
    const el = box.current;
    const host = el?.offsetParent;
    // Page scrolling moves the box with the drawing (it is positioned inside it); only a sideways scroll of the drawing moves the element under it.
    const onScroll = (e: Event) => e.target !== document && place();
    window.addEventListener("scroll", onScroll, true);
    window.addEventListener("resize", place);
    const resized = new ResizeObserver(() => place());
    if (el) resized.observe(el);
    if (host) resized.observe(host);
    return () => {
      window.removeEventListener("scroll", onScroll, true);
      window.removeEventListener("resize", place);
      resized.disconnect();
    };
  }, [place]);

  useEffect(() => {
    // A tap elsewhere closes an empty box; one holding a draft stays until the student sends or cancels it.
    const onPointerDown = (e: PointerEvent) => {
      const t = e.target instanceof Element ? e.target : null;
      if (!t || box.current?.contains(t) || t.closest(PICKABLE)) return;
      if (box.current?.querySelector("textarea")?.value.trim()) return;
      onClose(false);
    };
    document.addEventListener("pointerdown", onPointerDown);
    return () => document.removeEventListener("pointerdown", onPointerDown);
  }, [onClose]);

  return (
    <div
      ref={box}
      role="dialog"
      aria-label={t("askDialog", { target: name })}
      data-testid="ask-here"
      data-element={key}
      onKeyDown={(e) => {
        if (e.key !== "Escape") return;
        e.preventDefault();
        e.stopPropagation();
        close(true);
      }}
      className="group absolute z-30 w-[min(22rem,calc(100vw-1rem))] rounded-xl border-2 border-amber-300 bg-slate-900 p-3 text-start shadow-2xl shadow-black/60"
    >
      {/* The pointer to the element: on the top edge when the box is below it, on the bottom edge when above. */}
      <span
        ref={caret}
        aria-hidden="true"
        className="absolute -top-2 h-4 w-4 rotate-45 border-l-2 border-t-2 border-amber-300 bg-slate-900 group-data-[side=above]:top-auto group-data-[side=above]:-bottom-2 group-data-[side=above]:border-l-0 group-data-[side=above]:border-t-0 group-data-[side=above]:border-r-2 group-data-[side=above]:border-b-2"
      />
      <button
        type="button"
        onClick={() => close(true)}
        aria-label={common("close")}
        className="absolute end-1 top-1 h-9 w-9 rounded-lg text-xl leading-none text-slate-300 hover:text-white"
      >
        ×
      </button>
      {/* One live region from the start, so the receipt is announced when it arrives. */}
      <p role="status" data-testid={receipt ? "question-receipt" : undefined} data-kind="ok" className="pe-8 text-emerald-200 empty:hidden">
        {receipt}
      </p>
      {receipt ? (
        <button
          type="button"
          data-testid="ask-here-done"
          autoFocus
          onClick={() => close(true)}
          className="mt-3 w-full rounded-lg bg-amber-300 px-4 py-2 font-bold text-slate-950"
        >
          {common("done")}
        </button>
      ) : (
        <AskForm
          snapshot={snapshot}
          target={target}
          compact
          className="[&>label:first-child]:pe-8"
          onSent={(status) => setReceipt(t(askedReceipt(status)))}
          onCancel={() => close(true)}
        />
      )}
    </div>
  );
}
