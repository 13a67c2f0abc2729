"use client";

import { useDeferredValue, useMemo, useState } from "react";
import type { HostSnapshot } from "@/lib/session/views";
import { splitRoster, type ListedStudent } from "@/lib/session/roster";
import { lookalikeKey } from "@/lib/protocol/wire";
import { useLive, useSend } from "@/components/live/LiveSession";

/** Rows drawn at once: a lecture hall of thousands is found by name, not scrolled. */
const SHOWN_MAX = 100;

const collator = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });

/** Connected first, then by name. */
const byPresenceThenName = (a: ListedStudent, b: ListedStudent) =>
  Number(b.connected) - Number(a.connected) || collator.compare(a.nickname, b.nickname) || a.number - b.number;

/** Who has joined, who is connected now, and the room lock. */
export function Participants({ snapshot, disabled }: { snapshot: HostSnapshot; disabled?: boolean }) {
  const send = useSend();
  const roster = useLive((s) => s.roster);
  // The roster changes every half second in a join storm; the list is rebuilt once per change, off the typing path.
  const { listed, removed } = useMemo(() => {
    const split = splitRoster(roster?.rows.values() ?? []);
    return { listed: split.listed.sort(byPresenceThenName), removed: split.removed };
  }, [roster]);
  const [query, setQuery] = useState("");
  const deferredQuery = useDeferredValue(query);
  const matching = useMemo(() => {
    const q = lookalikeKey(deferredQuery);
    return q ? listed.filter((p) => lookalikeKey(p.nickname).includes(q) || `#${p.number}` === deferredQuery.trim()) : listed;
  }, [listed, deferredQuery]);
  const people = matching.slice(0, SHOWN_MAX);
  return (
    <section className="rounded-xl border border-slate-700 bg-slate-900/70 p-4" aria-labelledby="people-heading">
      <div className="flex items-center justify-between gap-2">
        <h2 id="people-heading" className="text-lg font-semibold">
          Students ({snapshot.participantCount} connected, {listed.length} joined)
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
      <div className="mt-2 flex flex-wrap items-center justify-between gap-2 text-sm">
        <p>
          Projector views open:{" "}
          <span data-testid="projector-count" className="font-semibold tabular-nums">
            {snapshot.projectorCount}
          </span>
          {snapshot.projectorCount > 1 && <span className="text-amber-200"> (more than your own window?)</span>}
        </p>
        {!disabled && snapshot.projectorCount > 0 && (
          <button
            type="button"
            data-testid="projectors-close"
            onClick={() => {
              const advice = snapshot.locked ? "" : " Lock the room first, or they can open again.";
              if (window.confirm(`Close every projector view? Your own projector window can reopen it with a reload.${advice}`))
                void send("projectors:close", {});
            }}
            className="rounded-lg border border-slate-500 px-3 py-1 font-semibold hover:bg-slate-800"
          >
            Close projector views
          </button>
        )}
      </div>
      {listed.length > SHOWN_MAX / 2 && (
        <div className="mt-3">
          <label htmlFor="participant-search" className="text-sm text-slate-300">
            Find a student
          </label>
          <input
            id="participant-search"
            type="search"
            data-testid="participant-search"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            placeholder="Name or #number"
            className="mt-1 w-full rounded-lg border border-slate-500 bg-slate-950 px-3 py-1.5 text-slate-100"
          />
        </div>
      )}
      <ul className="mt-3 max-h-64 space-y-1 overflow-y-auto" data-testid="participant-list">
        {people.map((p) => (
          <li key={p.id} className="flex items-center justify-between gap-2">
            <span
              className={`min-w-0 [overflow-wrap:anywhere] ${p.connected ? "text-slate-100" : "text-slate-400 italic"}`}
              data-connected={p.connected}
            >
              <span aria-hidden="true">{p.connected ? "● " : "○ "}</span>
              {p.nickname}
              {p.lookalike && (
                <span className="ml-1 rounded bg-slate-700 px-1 text-sm text-slate-100" title="Another student's name looks the same">
                  #{p.number}
                  <span className="sr-only"> (another student has a name that looks the same)</span>
                </span>
              )}
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
        {listed.length === 0 && <li className="text-slate-400">Nobody has joined yet.</li>}
        {listed.length > 0 && matching.length === 0 && <li className="text-slate-400">Nobody by that name.</li>}
      </ul>
      {matching.length > people.length && (
        <p className="mt-1 text-sm text-slate-300" data-testid="participant-more">
          Showing {people.length} of {matching.length}. Type a name to find a student.
        </p>
      )}
      {removed.length > 0 && (
        <div className="mt-3 border-t border-slate-700 pt-3">
          <h3 className="text-sm font-semibold uppercase tracking-wider text-slate-300" id="removed-heading">
            Removed ({removed.length})
          </h3>
          <ul className="mt-1 space-y-1" data-testid="removed-list" aria-labelledby="removed-heading">
            {removed.map((p) => (
              <li key={p.id} className="flex items-center justify-between gap-2" data-participant-id={p.id}>
                <span className="min-w-0 text-slate-300 [overflow-wrap:anywhere]">
                  {p.nickname} <span className="text-sm text-slate-400">#{p.number}</span>
                </span>
                {!disabled && (
                  <button
                    type="button"
                    onClick={() => void send("participant:readmit", { participantId: p.id })}
                    className="shrink-0 rounded px-2 py-1 text-sm text-emerald-300 hover:bg-slate-800"
                    aria-label={`Let ${p.nickname} back in`}
                    data-testid="participant-readmit"
                  >
                    Let back in
                  </button>
                )}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
