"use client";

import { useTranslations } from "next-intl";
import { useEffect, useRef, useState } from "react";
import type { PublicSnapshot } from "@/lib/session/views";
import { useLive, useSend } from "@/components/live/LiveSession";

export interface LookBack {
  /** The step the phone shows: the class's, or an earlier one the student went back to. */
  viewStep: number;
  /** The class's step (0-based). */
  liveStep: number;
  lookingBack: boolean;
  back: () => void;
  forward: () => void;
  toLive: () => void;
}

/**
 * Looking back through the steps already shown, never ahead of the class.
 * Kept on the phone only; the server hears a yes/no so the teacher's console
 * can count how many are looking back (presence: never logged, never who).
 *
 * Live events always reach the student: a poll opening or a mode switch
 * brings them back to live (the poll is then on screen), and so does the
 * class reaching or passing back over the step they were reading.
 */
export function useLookBack(snapshot: PublicSnapshot): LookBack {
  const send = useSend();
  const connection = useLive((s) => s.connection);
  const [looking, setLooking] = useState<number | null>(null);
  const liveStep = snapshot.stepIndex;
  const viewStep = looking !== null && looking < liveStep ? looking : liveStep;
  const lookingBack = viewStep < liveStep;

  // A new poll round or another scenario: back to live at once.
  const pollKey = snapshot.poll && snapshot.poll.status === "open" ? `${snapshot.poll.id}:${snapshot.poll.round}` : null;
  const scenarioKey = `${snapshot.mode}/${snapshot.variant}`;
  const seen = useRef({ pollKey, scenarioKey });
  // Whether the student was looking back when the news came (a live student keeps their scroll: the poll banner says it).
  const wasLookingBack = useRef(lookingBack);
  useEffect(() => {
    const before = seen.current;
    seen.current = { pollKey, scenarioKey };
    const pollOpened = pollKey !== null && pollKey !== before.pollKey;
    const pulled = wasLookingBack.current;
    wasLookingBack.current = lookingBack;
    if (!pollOpened && scenarioKey === before.scenarioKey) return;
    setLooking(null);
    if (pollOpened && pulled) {
      // After the re-render that shows the live step and the card.
      requestAnimationFrame(() => document.querySelector("[data-testid=poll-card]")?.scrollIntoView({ block: "start" }));
    }
  }, [pollKey, scenarioKey, lookingBack]);

  // The class came back to (or behind) the step being read: that is live again.
  useEffect(() => {
    if (looking !== null && looking >= liveStep) setLooking(null);
  }, [looking, liveStep]);

  // Tell the server on every change, and again after a reconnect (a new socket starts as "live").
  const told = useRef(false);
  useEffect(() => {
    if (connection !== "connected") return;
    if (!lookingBack && !told.current) return;
    told.current = lookingBack;
    void send("lookback:set", { lookingBack });
  }, [lookingBack, connection, send]);

  return {
    viewStep,
    liveStep,
    lookingBack,
    back: () => setLooking(Math.max(0, viewStep - 1)),
    forward: () => setLooking(viewStep + 1 >= liveStep ? null : viewStep + 1),
    toLive: () => setLooking(null),
  };
}

/**
 * The look-back controls above the step: "◀ Earlier step" while live; while
 * looking back, where the student is, where the class is, and one tap back
 * to live. Sticky, so "Back to live" is reachable from anywhere on the page.
 */
export function LookBackBar({ lookBack, total }: { lookBack: LookBack; total: number }) {
  const t = useTranslations("lookBack");
  const { viewStep, liveStep, lookingBack } = lookBack;
  const liveButton = useRef<HTMLButtonElement>(null);
  if (!lookingBack) {
    if (liveStep === 0) return null;
    return (
      <div className="flex justify-end">
        <button
          type="button"
          data-testid="look-back"
          onClick={lookBack.back}
          className="rounded-lg border border-slate-500 px-3 py-2 text-sm font-semibold text-slate-100 hover:bg-slate-800"
        >
          {t("button", { step: liveStep })}
        </button>
      </div>
    );
  }
  return (
    <div
      className="sticky top-0 z-10 space-y-2 rounded-xl border-2 border-sky-400 bg-slate-900 p-3 shadow-xl"
      role="region"
      aria-label={t("region")}
      data-testid="look-back-bar"
    >
      <p className="text-sm text-sky-100" aria-live="polite">
        {t("reading", { step: viewStep + 1, total, live: liveStep + 1 })}
      </p>
      <div className="flex flex-wrap gap-2">
        <button
          type="button"
          data-testid="look-back"
          onClick={lookBack.back}
          disabled={viewStep === 0}
          aria-label={t("earlier")}
          className="rounded-lg border border-slate-500 px-3 py-2 font-semibold disabled:opacity-40"
        >
          {/* Earlier is where reading comes from: the left in English, the right in Arabic. */}
          <span aria-hidden="true" className="inline-block rtl:-scale-x-100">
            ◀
          </span>
        </button>
        <button
          type="button"
          data-testid="look-forward"
          onClick={() => {
            lookBack.forward();
            // Forward onto the live step: the bar goes, so keep the keyboard's place on the page.
            if (viewStep + 1 >= liveStep) liveButton.current?.blur();
          }}
          aria-label={t("later")}
          className="rounded-lg border border-slate-500 px-3 py-2 font-semibold"
        >
          <span aria-hidden="true" className="inline-block rtl:-scale-x-100">
            ▶
          </span>
        </button>
        <button
          ref={liveButton}
          type="button"
          data-testid="back-to-live"
          data-live-step={liveStep + 1}
          onClick={lookBack.toLive}
          className="flex-1 rounded-lg bg-sky-400 px-3 py-2 font-bold text-slate-950"
        >
          {t("backToLive", { step: liveStep + 1 })}
        </button>
      </div>
    </div>
  );
}
