"use client";

import { useLayoutEffect, useRef, useState } from "react";

export interface BoxSize {
  width: number;
  height: number;
  /** CSS px per rem on this page (the projector's rem follows the screen). */
  rem: number;
  /** The font the drawing's text is set in, for measuring it. */
  family: string;
}

/** A CSS length in px ("720px"), else 0. */
const pixels = (value: string) => (value.endsWith("px") ? parseFloat(value) || 0 : 0);

/**
 * The size of the element the diagram is drawn in, kept up to date. A box
 * that is not laid out yet (inside a closed <details>) reports its CSS width
 * when it has one, so a sideways-scrolling drawing is ready the moment it is
 * opened rather than one frame later.
 */
/** `trackHeight`: false when the drawing sets its own height (it would only measure itself). */
export function useBoxSize(trackHeight: boolean): [React.RefObject<HTMLDivElement | null>, BoxSize | null] {
  const ref = useRef<HTMLDivElement | null>(null);
  const [size, setSize] = useState<BoxSize | null>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const read = () => {
      const rect = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      const rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
      const width = Math.floor(rect.width || pixels(style.width));
      const height = trackHeight ? Math.floor(rect.height || pixels(style.height)) : 0;
      const family = style.fontFamily || "sans-serif";
      setSize((prev) =>
        prev && prev.width === width && prev.height === height && prev.rem === rem && prev.family === family
          ? prev
          : { width, height, rem, family },
      );
    };
    read();
    const observer = new ResizeObserver(read);
    observer.observe(el);
    // The projector's rem follows the window (globals.css) even when the box's size happens not to change.
    window.addEventListener("resize", read);
    return () => {
      observer.disconnect();
      window.removeEventListener("resize", read);
    };
  }, [trackHeight]);
  return [ref, size];
}
