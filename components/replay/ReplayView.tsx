"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import { useLocale, useTranslations } from "next-intl";
import { pollWords } from "@/components/projector/ProjectorView";
import { getScenario } from "@/lib/lesson/scenarios";
import type { KubeVersion } from "@/lib/lesson/versions";
import { diagramOf } from "@/lib/session/lesson";
import { builtInDiagram } from "@/lib/lesson/model";
import type { LessonStep } from "@/lib/lesson/model";
import { ReplayTimeline, activePoll, hostQuestionList, toHostSnapshot, toPublicSnapshot, type SessionEvent } from "@/lib/session";
import { publicProjection, recordKey } from "@/lib/session/projection";
import type { ClassQuestion } from "@/lib/session/questions";
import type { PublicPoll } from "@/lib/session/views";
import { SequenceDiagram } from "@/components/diagram/SequenceDiagram";
import { CardStepTag, ModeBadge, StepHeader } from "@/components/classroom/StepHeader";
import { ModeSwitchNotice } from "@/components/classroom/ModeSwitchNotice";
import { LessonPanels } from "@/components/lessonPanels/LazyPanels";
import { TallyBars } from "@/components/poll/TallyBars";
import { hostKeyHeaders } from "@/components/live/hostKeyStore";
import { ReplayControls, type Speed } from "./ReplayControls";
import { FidelityNotes } from "@/components/classroom/FidelityNotes";
import { readApi } from "@/lib/protocol/rest";
import { stepNumber } from "@/lib/lesson/stepNumbers";
import { ReplayQuestions } from "@/components/questions/ReplayQuestions";
import { useLocalizedScenario, useScenario } from "@/components/i18n/useScenario";
import { roomCode } from "@/components/i18n/roomCode";

interface Loaded {
  events: SessionEvent[];
  access: "admin" | "host" | "viewer";
}

/** Loads the saved log and plays it back through the same reducer as the live room. */
export function ReplayView({ id }: { id: string }) {
  const t = useTranslations("replay");
  const locale = useLocale();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  // A share link pasted into this tab changes only the fragment: load again with its key.
  const [hash, setHash] = useState("");
  useEffect(() => {
    const onHash = () => setHash(window.location.hash);
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);

  useEffect(() => {
    let cancelled = false;
    setError(null);
    // A shared link carries its key in the fragment, which browsers never send to servers.
    const shareKey = new URLSearchParams(window.location.hash.slice(1)).get("share");
    const headers: Record<string, string> = { ...hostKeyHeaders(), ...(shareKey ? { "X-Replay-Key": shareKey } : {}) };
    fetch(`/api/sessions/${encodeURIComponent(id)}/events`, { headers })
      .then(async (res) => {
        const reply = await readApi<Loaded>(res);
        // The server says why in English (who may replay, and how): English keeps its sentence, other languages ours.
        if (!reply.ok) throw new Error((locale === "en" && reply.message) || t("loadFailed"));
        if (!cancelled) setLoaded(reply.body);
      })
      .catch((err: Error) => !cancelled && setError(err.message));
    return () => {
      cancelled = true;
    };
  }, [id, hash, t, locale]);

  if (error) {
    return (
      <main className="mx-auto max-w-xl px-5 py-16" data-testid="session-error">
        <h1 className="text-3xl font-bold">{t("cannot")}</h1>
        <p className="mt-3 text-lg text-slate-300" role="alert">
          {error}
        </p>
        <a href="/sessions" className="mt-6 inline-block rounded-lg bg-sky-400 px-4 py-3 font-semibold text-slate-950">
          {t("savedSessions")}
        </a>
      </main>
    );
  }
  if (!loaded)
    return (
      <main className="p-6 text-slate-300" role="status">
        {t("loading")}
      </main>
    );
  return <Player events={loaded.events} access={loaded.access} />;
}

function Player({ events, access }: Loaded) {
  const tr = useTranslations("replay");
  const locale = useLocale();
  const timeline = useMemo(() => new ReplayTimeline(events), [events]);
  const [t, setT] = useState(0);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState<Speed>(1);
  const last = useRef<number | null>(null);

  useEffect(() => {
    if (!playing) {
      last.current = null;
      return;
    }
    let frame = 0;
    const tick = (now: number) => {
      const dt = last.current === null ? 0 : now - last.current;
      last.current = now;
      setT((prev) => {
        const next = Math.min(timeline.duration, prev + dt * speed);
        if (next >= timeline.duration) setPlaying(false);
        return next;
      });
      frame = requestAnimationFrame(tick);
    };
    frame = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(frame);
  }, [playing, speed, timeline]);

  const index = timeline.indexAt(t);
  const state = useMemo(() => timeline.stateAtIndex(index), [timeline, index]);
  const joined = Object.keys(state.participants).length;
  // The same projections as the live room, over the replayed state: a shared link shows the class's (what the
  // projector showed), the teacher's own replay the teacher's.
  const view = useMemo(() => {
    if (access !== "viewer") {
      const host = toHostSnapshot(state, { connectedCount: 0, isConnected: () => false });
      const poll: PublicPoll | null = host.poll;
      return { snapshot: host, poll, hostPoll: host.poll, questions: hostQuestionList(state).questions };
    }
    const records = publicProjection(state, { connectedCount: joined });
    const questions: ClassQuestion[] = [];
    for (const id of state.questionOrder) {
      const q = records[recordKey("q", id)];
      if (q) questions.push(q);
    }
    const snapshot = records.session ?? toPublicSnapshot(state, joined);
    return { snapshot, poll: snapshot.poll, hostPoll: null, questions };
  }, [access, state, joined]);
  const { snapshot, poll, hostPoll } = view;
  // The built-in lesson's panels in the reader's language (the lesson catalog's, marked English where it has none).
  const { scenario } = useScenario(snapshot.mode, snapshot.variant, snapshot.kubeVersion);
  // A teacher's lesson is in the log itself (`session:created`): the replay needs nothing else. The built-in card's
  // narration in the reader's language, as on the live screens (components/live/useLesson.ts).
  const custom = state.lesson !== null;
  const card = useLocalizedScenario(getScenario(state.mode, state.variant));
  const builtIn = useMemo(() => builtInDiagram(card.scenario), [card.scenario]);
  const diagram = custom ? diagramOf(state) : builtIn;
  const statusWord = !poll
    ? ""
    : poll.status === "open"
      ? tr("voting")
      : poll.status === "closed"
        ? tr("closedNotRevealed")
        : tr("revealed");

  return (
    <main className="mx-auto max-w-[1500px] space-y-4 px-4 py-4">
      <header className="flex flex-wrap items-end justify-between gap-3 border-b border-slate-800 pb-3">
        <div>
          <p className="text-sm uppercase tracking-widest text-slate-400">{access === "viewer" ? tr("kickerShared") : tr("kicker")}</p>
          <h1 className="text-3xl font-bold [overflow-wrap:anywhere]">
            {snapshot.title ? <span translate="no">{snapshot.title}</span> : tr.rich("untitled", { code: snapshot.code, ...roomCode })}
          </h1>
          <p className="text-slate-300">
            {tr.rich("meta", {
              code: snapshot.code,
              when: new Date(state.createdAt).toLocaleString(locale),
              joined,
              ...roomCode,
              // Written by Intl in the page's language already: a date is not for a translation tool to reword.
              time: (chunks) => (
                <time dateTime={new Date(state.createdAt).toISOString()} translate="no">
                  {chunks}
                </time>
              ),
            })}
          </p>
        </div>
        <a href="/sessions" className="rounded-lg border border-slate-500 px-4 py-2 font-semibold hover:bg-slate-800">
          {tr("savedSessions")}
        </a>
      </header>
      <ReplayControls
        timeline={timeline}
        t={t}
        playing={playing}
        speed={speed}
        onSeek={(next) => setT(Math.max(0, Math.min(timeline.duration, next)))}
        onPlaying={(p) => {
          if (p && t >= timeline.duration) setT(0);
          setPlaying(p);
        }}
        onSpeed={setSpeed}
      />
      <div className="grid grid-cols-[minmax(0,1fr)] gap-6 xl:grid-cols-[minmax(0,1fr)_480px]">
        <div className="min-w-0 space-y-4">
          <div className="flex flex-wrap items-start justify-between gap-4">
            <StepHeader scenario={diagram} snapshot={snapshot} lessonLang={custom ? undefined : (card.lang ?? "en")} />
            {!custom && <ModeBadge mode={snapshot.mode} scenario={scenario} version={snapshot.kubeVersion} />}
          </div>
          {!custom && <ModeSwitchNotice snapshot={snapshot} />}
          <div className="grid grid-cols-[minmax(0,1fr)] gap-4 2xl:grid-cols-[minmax(0,1fr)_minmax(0,560px)]">
            {/* Left to right in every language; the built-in lesson's words are English, a teacher's as written. */}
            <div
              className="rounded-2xl border border-slate-800 bg-slate-950/60 p-2"
              dir="ltr"
              lang={custom ? undefined : "en"}
              translate={custom ? "no" : undefined}
            >
              <SequenceDiagram scenario={diagram} stepIndex={snapshot.stepIndex} className="h-auto w-full" />
            </div>
            {!custom && <LessonPanels scenario={scenario} stepIndex={snapshot.stepIndex} audience="host" />}
          </div>
          {!custom && <FidelityNotes version={snapshot.kubeVersion} />}
        </div>
        <aside className="space-y-4">
          <section className="rounded-xl border border-slate-700 bg-slate-900/70 p-4" aria-labelledby="replay-poll" aria-live="polite">
            <h2 id="replay-poll" className="text-lg font-semibold">
              {tr("poll")}
            </h2>
            {poll ? (
              <div className="mt-2 space-y-3" data-poll-status={poll.status}>
                <p className="font-semibold [overflow-wrap:anywhere]">
                  <span {...pollWords(poll, custom)}>{poll.question}</span>
                  {poll.round > 1 ? ` ${tr("round", { round: poll.round })}` : ""}
                </p>
                <AskedAt poll={poll} now={{ ...snapshot, lesson: state.lesson }} steps={diagram.steps} />
                <p className="text-sm text-slate-300">
                  {!poll.results || (access === "viewer" && poll.status !== "revealed")
                    ? statusWord
                    : tr("votes", { status: statusWord, total: poll.results.total })}
                </p>
                {!poll.results || (access === "viewer" && poll.status !== "revealed") ? (
                  // A shared link carries no individual votes, and no answer or counts until the teacher revealed them.
                  <p className="text-slate-300" data-testid="replay-withheld">
                    {poll.status === "open" ? tr("votingWithheld") : tr("closedWithheld")}
                  </p>
                ) : (
                  <TallyBars
                    options={poll.options}
                    optionWords={pollWords(poll, custom)}
                    results={poll.results}
                    correctOptionId={poll.status === "revealed" ? poll.correctOptionId : null}
                  />
                )}
                {hostPoll && poll.status !== "open" && (
                  <WhoVoted snapshotPoll={hostPoll} votes={activePoll(state)?.votes ?? {}} participants={state.participants} />
                )}
              </div>
            ) : (
              <p className="mt-2 text-slate-400">{tr("noPoll")}</p>
            )}
          </section>
          <ReplayQuestions questions={view.questions} shownId={snapshot.questions.shownId} lesson={state.lesson ? diagram : undefined} />
        </aside>
      </div>
    </main>
  );
}

/**
 * The step the poll was asked at, beside the poll: by the time of the reveal
 * the class has often moved on, and "what happens next?" only makes sense
 * next to the step it was asked after.
 */
function AskedAt({
  poll,
  now,
  steps,
}: {
  poll: Pick<PublicPoll, "mode" | "variant" | "stepIndex">;
  now: { mode: string; variant: string; stepIndex: number; lesson: unknown; kubeVersion: KubeVersion };
  /** The lesson's steps (a teacher's lesson has no modes to look the step up in). */
  steps: readonly LessonStep[];
}) {
  const tr = useTranslations("replay");
  const title = now.lesson ? null : getScenario(poll.mode, poll.variant, now.kubeVersion).title;
  const askedSteps = now.lesson ? steps : getScenario(poll.mode, poll.variant, now.kubeVersion).steps;
  const step = askedSteps[poll.stepIndex];
  // Numbered in the order of the mode it was asked in, the card's number beside it where that mode moved the step.
  const { ordinal, card } = stepNumber(askedSteps, poll.stepIndex);
  const moved = now.mode !== poll.mode || now.variant !== poll.variant || now.stepIndex !== poll.stepIndex;
  return (
    <div
      className="rounded-lg border border-violet-400/50 bg-violet-950/30 p-3"
      data-testid="replay-asked-at"
      data-step={poll.stepIndex + 1}
    >
      <p className="text-sm text-violet-200">
        {title
          ? tr.rich("askedAtOf", { step: poll.stepIndex + 1, scenario: title, lesson: (chunks) => <span lang="en">{chunks}</span> })
          : tr("askedAt", { step: poll.stepIndex + 1 })}
      </p>
      {step && (
        // The step's title and narration are the lesson's own words: the built-in lesson's English, or a teacher's own.
        <p className="font-semibold [overflow-wrap:anywhere]" {...(now.lesson ? { translate: "no" as const } : { lang: "en" })}>
          {ordinal} {step.title}
          {card !== null && (
            <>
              {" "}
              <CardStepTag card={card} className="text-sm font-medium" />
            </>
          )}
          : <span className="font-normal text-slate-200">{step.narration}</span>
        </p>
      )}
      {moved && <p className="mt-1 text-sm text-slate-300">{tr("movedOn")}</p>}
    </div>
  );
}

/** The teacher's own replay may show who voted what; a shared link never does. */
function WhoVoted({
  snapshotPoll,
  votes,
  participants,
}: {
  snapshotPoll: NonNullable<ReturnType<typeof toHostSnapshot>["poll"]>;
  /** participantId -> optionId, from the replayed state (the live console never receives them). */
  votes: Record<string, string>;
  participants: Record<string, { nickname: string }>;
}) {
  const tr = useTranslations("replay");
  const entries = Object.entries(votes);
  if (entries.length === 0) return null;
  return (
    <details>
      <summary className="cursor-pointer text-sm text-sky-200">{tr("whoVoted")}</summary>
      {/* Nicknames and the options' text are the class's and the teacher's own words. */}
      <ul className="mt-2 space-y-1 text-sm" translate="no">
        {entries.map(([pid, optionId]) => (
          <li key={pid}>
            {participants[pid]?.nickname ?? "?"}: {snapshotPoll.options.find((o) => o.id === optionId)?.text}
          </li>
        ))}
      </ul>
    </details>
  );
}
