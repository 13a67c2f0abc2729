"use client";

import type { HostSnapshot } from "@/lib/session/views";
import { useSend } from "@/components/live/LiveSession";

/** Who has joined, who is connected now, and the room lock. */
export function Participants({ snapshot, disabled }: { snapshot: HostSnapshot; disabled?: boolean }) {
  const send = useSend();
  const people = [...snapshot.participants].sort((a, b) => Number(b.connected) - Number(a.connected) || a.nickname.localeCompare(b.nickname));
  return (
    <section className="rounded-xl border border-slate-700 bg-slate-900/70 p-4" aria-labelledby="people-heading">
      <div className="flex items-center justify-between gap-2">
        <h2 id="people-heading" className="text-lg font-semibold">
          Students ({snapshot.participantCount} connected, {people.length} joined)
        </h2>
        {!disabled && (
        <button
          type="button"
          data-testid="room-lock"
          aria-pressed={snapshot.locked}
          onClick={() => void send("room:lock", { locked: !snapshot.locked })}
          className="rounded-lg border border-slate-500 px-3 py-1.5 text-sm font-semibold hover:bg-slate-800"
        >
          {snapshot.locked ? "Unlock room" : "Lock room"}
        </button>
        )}
      </div>
      {snapshot.locked && <p className="mt-2 text-sm text-amber-200">Locked: nobody new can join.</p>}
      <ul className="mt-3 max-h-64 space-y-1 overflow-y-auto" data-testid="participant-list">
        {people.map((p) => (
          <li key={p.id} className="flex items-center justify-between gap-2">
            <span className={`min-w-0 [overflow-wrap:anywhere] ${p.connected ? "text-slate-100" : "text-slate-500"}`}>
              <span aria-hidden="true">{p.connected ? "● " : "○ "}</span>
              {p.nickname}
              <span className="sr-only">{p.connected ? " (connected)" : " (away)"}</span>
            </span>
            {!disabled && (
            <span className="flex shrink-0 gap-1">
              <button
                type="button"
                onClick={() => {
                  const nickname = window.prompt(`New name for ${p.nickname}:`, p.nickname);
                  if (nickname && nickname.trim() && nickname.trim() !== p.nickname) {
                    void send("participant:rename", { participantId: p.id, nickname: nickname.trim() });
                  }
                }}
                className="rounded px-2 py-1 text-sm text-sky-300 hover:bg-slate-800"
                aria-label={`Rename ${p.nickname}`}
                data-testid="participant-rename"
              >
                Rename
              </button>
              <button
                type="button"
                onClick={() => {
                  if (window.confirm(`Remove ${p.nickname} from this session?`)) void send("participant:remove", { participantId: p.id });
                }}
                className="rounded px-2 py-1 text-sm text-rose-300 hover:bg-rose-950"
                aria-label={`Remove ${p.nickname}`}
                data-testid="participant-remove"
              >
                Remove
              </button>
            </span>
            )}
          </li>
        ))}
        {people.length === 0 && <li className="text-slate-400">Nobody has joined yet.</li>}
      </ul>
    </section>
  );
}
