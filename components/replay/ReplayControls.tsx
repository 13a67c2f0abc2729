"use client";

import { useEffect } from "react";
import { useTranslations } from "next-intl";
import type { ReplayTimeline, TimelineMark } from "@/lib/session";
import type { MarkWords } from "@/lib/session/timeline";

/** Playback speeds the player offers. */
export const SPEEDS = [1, 2, 4, 8] as const;
export type Speed = (typeof SPEEDS)[number];

const MARK_STYLE: Record<TimelineMark["kind"], string> = {
  step: "h-3 w-0.5 bg-slate-300",
  mode: "h-5 w-1 bg-sky-400",
  poll: "h-5 w-1.5 bg-violet-400",
  reveal: "h-5 w-1 bg-emerald-400",
  question: "h-4 w-1 bg-amber-300",
  end: "h-5 w-1 bg-rose-400",
};

function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/**
 * Play / pause, speed, a scrubbable timeline with ticks for steps and marks
 * for mode switches and polls, poll jumps, and the keyboard:
 * Space play/pause, ←/→ 5 s, [ / ] previous / next poll, Home / End.
 */
export function ReplayControls({
  timeline,
  t,
  playing,
  speed,
  onSeek,
  onPlaying,
  onSpeed,
}: {
  timeline: ReplayTimeline;
  t: number;
  playing: boolean;
  speed: Speed;
  onSeek: (t: number) => void;
  onPlaying: (playing: boolean) => void;
  onSpeed: (speed: Speed) => void;
}) {
  const tr = useTranslations("replay");
  const duration = Math.max(1, timeline.duration);
  const markLabel = (w: MarkWords): string => {
    switch (w.say) {
      case "step":
        return tr("markStep", { step: w.step });
      case "mode":
        return tr("markMode", { mode: w.mode });
      case "version":
        return tr("markVersion", { version: w.version });
      case "poll":
        return tr("markPoll", { question: w.question });
      case "pollAgain":
        return tr("markPollAgain", { question: w.question });
      case "reveal":
        return tr("markReveal");
      case "question":
        return tr("markQuestion", { text: w.text });
      case "end":
        return tr("markEnd");
    }
  };
  // Poll jumps land where the round's result is on screen (its reveal, or its close), not on "Voting · 0 votes".
  const nextPoll = timeline.pollResult(t, 1);
  const prevPoll = timeline.pollResult(t, -1);

  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      const target = e.target instanceof HTMLElement ? e.target : null;
      // On the timeline slider, arrows and Home/End move the slider itself; Space and [ ] still work.
      const onSlider = target instanceof HTMLInputElement && target.type === "range";
      if (onSlider && !["[", "]", " "].includes(e.key)) return;
      if (!onSlider && target && ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName)) return;
      const onButton = target?.tagName === "BUTTON" || target?.tagName === "SUMMARY" || target?.tagName === "A";
      switch (e.key) {
        case " ":
          if (onButton) return;
          e.preventDefault();
          onPlaying(!playing);
          break;
        case "ArrowRight":
          e.preventDefault();
          onSeek(t + 5000);
          break;
        case "ArrowLeft":
          e.preventDefault();
          onSeek(t - 5000);
          break;
        case "]":
          if (nextPoll) onSeek(nextPoll.t);
          break;
        case "[":
          if (prevPoll) onSeek(prevPoll.t);
          break;
        case "Home":
          e.preventDefault();
          onSeek(0);
          break;
        case "End":
          e.preventDefault();
          onSeek(timeline.duration);
          break;
      }
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [t, playing, nextPoll, prevPoll, onSeek, onPlaying, timeline.duration]);

  return (
    <section className="space-y-3 rounded-xl border border-slate-700 bg-slate-900/70 p-4" aria-label={tr("controls")}>
      <div className="flex flex-wrap items-center gap-3">
        <button
          type="button"
          data-testid="replay-play"
          onClick={() => onPlaying(!playing)}
          aria-keyshortcuts="Space"
          className="min-w-28 rounded-lg bg-sky-400 px-4 py-2 text-lg font-semibold text-slate-950"
        >
          {playing ? tr("pause") : tr("play")}
        </button>
        <label className="flex items-center gap-2">
          {tr("speed")}
          <select
            data-testid="replay-speed"
            value={speed}
            onChange={(e) => {
              const chosen = SPEEDS.find((s) => s === Number(e.target.value));
              if (chosen) onSpeed(chosen);
            }}
            className="rounded border border-slate-600 bg-slate-950 px-2 py-1.5"
          >
            {SPEEDS.map((s) => (
              <option key={s} value={s}>
                {tr("speedOption", { speed: s })}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          data-testid="replay-prev-poll"
          disabled={!prevPoll}
          onClick={() => prevPoll && onSeek(prevPoll.t)}
          aria-keyshortcuts="["
          className="rounded-lg border border-slate-500 px-3 py-2 disabled:opacity-40"
        >
          {tr("previousPoll")}
        </button>
        <button
          type="button"
          data-testid="replay-next-poll"
          disabled={!nextPoll}
          onClick={() => nextPoll && onSeek(nextPoll.t)}
          aria-keyshortcuts="]"
          className="rounded-lg border border-slate-500 px-3 py-2 disabled:opacity-40"
        >
          {tr("nextPoll")}
        </button>
        <p className="tabular-nums text-slate-300" aria-live="off" data-testid="replay-clock" dir="ltr">
          {clock(t)} / {clock(timeline.duration)}
        </p>
        <p className="text-sm text-slate-400">{tr("keys")}</p>
      </div>
      <div className="relative pt-6">
        <div className="pointer-events-none absolute inset-x-0 top-0 h-6" aria-hidden="true">
          {timeline.marks.map((m) => (
            <span
              key={m.seq}
              title={markLabel(m.words)}
              // A tooltip that quotes the class's own words or a Kubernetes name is not the interface's to translate.
              translate={m.words.say === "step" || m.words.say === "reveal" || m.words.say === "end" ? undefined : "no"}
              data-testid="replay-mark"
              data-kind={m.kind}
              className={`absolute bottom-0 -translate-x-1/2 rounded-sm rtl:translate-x-1/2 ${MARK_STYLE[m.kind]}`}
              style={{ insetInlineStart: `${(m.t / duration) * 100}%` }}
            />
          ))}
        </div>
        <label htmlFor="replay-timeline" className="sr-only">
          {tr("position")}
        </label>
        <input
          id="replay-timeline"
          data-testid="replay-timeline"
          type="range"
          min={0}
          max={Math.round(timeline.duration)}
          step={100}
          value={Math.round(t)}
          onChange={(e) => onSeek(Number(e.target.value))}
          aria-valuetext={tr("positionValue", { at: clock(t), total: clock(timeline.duration) })}
          className="w-full accent-sky-400"
        />
      </div>
      <ul className="flex flex-wrap gap-4 text-sm text-slate-300" aria-label={tr("legend")}>
        <li>
          <span className="me-1 inline-block h-3 w-0.5 bg-slate-300 align-middle" aria-hidden="true" />
          {tr("legendStep")}
        </li>
        <li>
          <span className="me-1 inline-block h-3 w-1 bg-sky-400 align-middle" aria-hidden="true" />
          {tr("legendMode")}
        </li>
        <li>
          <span className="me-1 inline-block h-3 w-1.5 bg-violet-400 align-middle" aria-hidden="true" />
          {tr("legendPoll")}
        </li>
        <li>
          <span className="me-1 inline-block h-3 w-1 bg-emerald-400 align-middle" aria-hidden="true" />
          {tr("legendReveal")}
        </li>
        <li>
          <span className="me-1 inline-block h-3 w-1 bg-amber-300 align-middle" aria-hidden="true" />
          {tr("legendQuestion")}
        </li>
      </ul>
    </section>
  );
}
