"use client";

import { useLayoutEffect, useRef, useState } from "react";

/** The smallest scale: the poll's smallest text (explanations, 0.9 em) stays at 18 px or more on a 1920x1080 projector. */
export const MIN_FIT_SCALE = 0.84;
const STEP = 0.04;

/**
 * A font scale for a box whose content must show whole (the projector's
 * poll: every option and its explanation): 1 when it fits, else a step
 * smaller after each render until it fits or reaches MIN_FIT_SCALE. Sizes
 * inside the box are in `em`, so they all follow. It starts again at 1 when
 * the content (`key`) or the box's size changes.
 */
export function useFitToHeight<T extends HTMLElement>(key: string): [React.RefObject<T | null>, number] {
  const ref = useRef<T | null>(null);
  const [fit, setFit] = useState({ key, scale: 1 });
  const scale = fit.key === key ? fit.scale : 1;

  // A new size of the box: try full size again.
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    let last = { w: el.clientWidth, h: el.clientHeight };
    const observer = new ResizeObserver(() => {
      const now = { w: el.clientWidth, h: el.clientHeight };
      if (now.w === last.w && now.h === last.h) return;
      last = now;
      setFit({ key, scale: 1 });
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [key]);

  // After each new scale: one step smaller while the content overflows the box.
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || scale <= MIN_FIT_SCALE) return;
    if (el.scrollHeight > el.clientHeight + 1) setFit({ key, scale: Math.max(MIN_FIT_SCALE, Math.round((scale - STEP) * 100) / 100) });
  }, [scale, key]);
  return [ref, scale];
}
