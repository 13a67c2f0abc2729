"use client";

import { useDeferredValue, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { useTranslations } from "next-intl";
import type { HostSnapshot } from "@/lib/session/views";
import { splitRoster, type ListedStudent } from "@/lib/session/roster";
import { lookalikeKey } from "@/lib/protocol/wire";
import { useLive, useSend } from "@/components/live/LiveSession";
import { NICKNAME_MAX } from "@/lib/constants";
import { ConfirmButton } from "./ConfirmButton";

/** Rows drawn at once: a lecture hall of thousands is found by name, not scrolled. */
const SHOWN_MAX = 100;

const collator = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });

/** A student's nickname: their own word, as they wrote it. */
const nick = (chunks: ReactNode) => <span translate="no">{chunks}</span>;

/**
 * A button's short word on screen and its full name for a screen reader ("Rename" / "Rename Ann"): the name is in
 * the button's text rather than an aria-label, so the nickname inside it can say it is not the interface's words.
 */
export function Spoken({ shown, name }: { shown: ReactNode; name: ReactNode }) {
  return (
    <>
      <span aria-hidden="true">{shown}</span>
      <span className="sr-only">{name}</span>
    </>
  );
}

/** Connected first, then by name. */
const byPresenceThenName = (a: ListedStudent, b: ListedStudent) =>
  Number(b.connected) - Number(a.connected) || collator.compare(a.nickname, b.nickname) || a.number - b.number;

/** Where focus goes once the roster shows what the teacher just did: the control that undoes it, or the row's first. */
type FocusNext = { participantId: string; testId: "participant-readmit" | "participant-rename" };

/** Who has joined and who is connected now; rename, remove and let back in, each in place. */
export function Participants({ snapshot, disabled }: { snapshot: HostSnapshot; disabled?: boolean }) {
  const t = useTranslations("consoleStudents");
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
  const listRef = useRef<HTMLElement>(null);
  const [focusNext, setFocusNext] = useState<FocusNext | null>(null);
  // After Remove the student's "Let back in" takes focus (the undo), after "Let back in" their row's Rename:
  // never the page body, where Space would step the class.
  useEffect(() => {
    if (!focusNext) return;
    const target = listRef.current?.querySelector<HTMLElement>(
      `[data-participant-id="${CSS.escape(focusNext.participantId)}"] [data-testid="${focusNext.testId}"]`,
    );
    if (target) {
      target.focus();
      setFocusNext(null);
    }
  }, [focusNext, roster]);
  return (
    <section ref={listRef} className="rounded-xl border border-slate-700 bg-slate-900/70 p-4" aria-labelledby="people-heading">
      <h2 id="people-heading" className="text-lg font-semibold" tabIndex={-1}>
        {t("heading", { connected: snapshot.participantCount, joined: listed.length })}
      </h2>
      {snapshot.locked && <p className="mt-2 text-sm text-amber-200">{t("locked")}</p>}
      <div className="mt-2 flex flex-wrap items-center justify-between gap-2 text-sm">
        <p>
          {t.rich("projectors", {
            count: snapshot.projectorCount,
            n: (chunks) => (
              <span data-testid="projector-count" className="font-semibold tabular-nums">
                {chunks}
              </span>
            ),
          })}
          {snapshot.projectorCount > 1 && <span className="text-amber-200"> {t("projectorsMany")}</span>}
        </p>
        {!disabled && snapshot.projectorCount > 0 && (
          <ConfirmButton
            testId="projectors-close"
            question={snapshot.locked ? t("closeProjectors") : t("closeProjectorsUnlocked")}
            confirmLabel={t("closeThem")}
            onConfirm={() => {
              void send("projectors:close", {});
              document.getElementById("people-heading")?.focus();
            }}
            className="rounded-lg border border-slate-500 px-3 py-1 font-semibold hover:bg-slate-800"
          >
            {t("closeProjectorViews")}
          </ConfirmButton>
        )}
      </div>
      {listed.length > SHOWN_MAX / 2 && (
        <div className="mt-3">
          <label htmlFor="participant-search" className="text-sm text-slate-300">
            {t("find")}
          </label>
          <input
            id="participant-search"
            type="search"
            data-testid="participant-search"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            placeholder={t("findPlaceholder")}
            className="mt-1 w-full rounded-lg border border-slate-500 bg-slate-950 px-3 py-1.5 text-slate-100"
          />
        </div>
      )}
      <ul className="mt-3 max-h-64 space-y-1 overflow-y-auto" data-testid="participant-list">
        {people.map((p) => (
          <StudentRow
            key={p.id}
            student={p}
            disabled={disabled}
            onRemoved={() => {
              // Focus waits on the heading (never the page body) until the roster shows the student removed.
              document.getElementById("people-heading")?.focus();
              setFocusNext({ participantId: p.id, testId: "participant-readmit" });
            }}
          />
        ))}
        {listed.length === 0 && <li className="text-slate-400">{t("nobody")}</li>}
        {listed.length > 0 && matching.length === 0 && <li className="text-slate-400">{t("noMatch")}</li>}
      </ul>
      {matching.length > people.length && (
        <p className="mt-1 text-sm text-slate-300" data-testid="participant-more">
          {t("showing", { shown: people.length, total: matching.length })}
        </p>
      )}
      {removed.length > 0 && (
        <div className="mt-3 border-t border-slate-700 pt-3">
          <h3 className="text-sm font-semibold uppercase tracking-wider text-slate-300" id="removed-heading">
            {t("removed", { count: removed.length })}
          </h3>
          <ul className="mt-1 space-y-1" data-testid="removed-list" aria-labelledby="removed-heading">
            {removed.map((p) => (
              <li key={p.id} className="flex items-center justify-between gap-2" data-participant-id={p.id}>
                <span className="min-w-0 text-slate-300 [overflow-wrap:anywhere]">
                  <span translate="no">{p.nickname}</span> <span className="text-sm text-slate-400">#{p.number}</span>
                </span>
                {!disabled && (
                  <button
                    type="button"
                    onClick={() => {
                      void send("participant:readmit", { participantId: p.id });
                      setFocusNext({ participantId: p.id, testId: "participant-rename" });
                    }}
                    className="shrink-0 rounded px-2 py-1 text-sm text-emerald-300 hover:bg-slate-800"
                    data-testid="participant-readmit"
                  >
                    <Spoken shown={t("readmit")} name={t.rich("readmitName", { name: p.nickname, nick })} />
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

/** One student: connected or away, a number when another name looks the same; rename in place, remove after asking. */
function StudentRow({ student: p, disabled, onRemoved }: { student: ListedStudent; disabled?: boolean; onRemoved: () => void }) {
  const t = useTranslations("consoleStudents");
  const common = useTranslations("common");
  const send = useSend();
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(p.nickname);
  const inputRef = useRef<HTMLInputElement>(null);
  const renameRef = useRef<HTMLButtonElement>(null);
  const back = useRef(false);
  useEffect(() => {
    if (renaming) inputRef.current?.select();
    else if (back.current) {
      back.current = false;
      renameRef.current?.focus();
    }
  }, [renaming]);
  const close = () => {
    back.current = true;
    setRenaming(false);
  };
  return (
    <li className="flex flex-wrap items-center justify-between gap-2" data-participant-id={p.id}>
      {renaming ? (
        <form
          className="flex min-w-0 flex-1 flex-wrap items-center gap-2"
          data-testid="rename-form"
          onSubmit={(e) => {
            e.preventDefault();
            const nickname = name.trim();
            if (nickname && nickname !== p.nickname) void send("participant:rename", { participantId: p.id, nickname });
            close();
          }}
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              e.preventDefault();
              close();
            }
          }}
        >
          <label className="sr-only" htmlFor={`rename-${p.id}`}>
            {t.rich("newName", { name: p.nickname, nick })}
          </label>
          <input
            id={`rename-${p.id}`}
            ref={inputRef}
            value={name}
            maxLength={NICKNAME_MAX}
            onChange={(e) => setName(e.target.value)}
            data-testid="rename-input"
            className="min-w-0 flex-1 rounded-md border border-slate-500 bg-slate-950 px-2 py-1 text-slate-100"
          />
          <button type="submit" data-testid="rename-save" className="rounded-md bg-sky-400 px-2 py-1 text-sm font-semibold text-slate-950">
            {t("save")}
          </button>
          <button type="button" onClick={close} className="rounded-md border border-slate-500 px-2 py-1 text-sm font-semibold">
            {common("cancel")}
          </button>
        </form>
      ) : (
        <span
          className={`min-w-0 [overflow-wrap:anywhere] ${p.connected ? "text-slate-100" : "text-slate-400 italic"}`}
          data-connected={p.connected}
        >
          <span aria-hidden="true">{p.connected ? "● " : "○ "}</span>
          <span translate="no">{p.nickname}</span>
          {p.lookalike && (
            <span className="ms-1 rounded bg-slate-700 px-1 text-sm text-slate-100" title={t("lookalikeTitle")}>
              #{p.number}
              <span className="sr-only"> {t("lookalike")}</span>
            </span>
          )}
          <span className="sr-only"> {p.connected ? t("connected") : t("away")}</span>
        </span>
      )}
      {!disabled && !renaming && (
        <span className="flex shrink-0 flex-wrap gap-1">
          <button
            ref={renameRef}
            type="button"
            onClick={() => {
              setName(p.nickname);
              setRenaming(true);
            }}
            className="rounded px-2 py-1 text-sm text-sky-300 hover:bg-slate-800"
            data-testid="participant-rename"
          >
            <Spoken shown={t("rename")} name={t.rich("renameName", { name: p.nickname, nick })} />
          </button>
          <ConfirmButton
            testId="participant-remove"
            question={t.rich("removeQuestion", { name: p.nickname, nick })}
            confirmLabel={t("remove")}
            onConfirm={() => {
              void send("participant:remove", { participantId: p.id });
              onRemoved();
            }}
            className="rounded px-2 py-1 text-sm text-rose-300 hover:bg-rose-950"
            confirmClassName="rounded bg-rose-300 px-2 py-1 text-sm font-semibold text-slate-950"
          >
            <Spoken shown={t("remove")} name={t.rich("removeName", { name: p.nickname, nick })} />
          </ConfirmButton>
        </span>
      )}
    </li>
  );
}
