"use client";

import { useEffect, useState } from "react";
import { readHostKey } from "@/components/live/hostKeyStore";
import { useJoinInfo } from "@/components/session/useJoinInfo";
import { useLessonDiagram } from "@/components/live/useLesson";
import { SequenceDiagram } from "@/components/diagram/SequenceDiagram";
import type { PublicPoll, PublicSnapshot } from "@/lib/session/views";
import { LiveSessionProvider, useLive, usePublicSnapshot } from "@/components/live/LiveSession";
import { SessionGate } from "@/components/session/SessionGate";
import { ClassPaused } from "@/components/session/ClassPaused";
import { ProjectorDiagram } from "@/components/diagram/ProjectorDiagram";
import { ModeBadge, StepHeader } from "@/components/session/StepHeader";
import { ModeSwitchNotice } from "@/components/session/ModeSwitchNotice";
import { TallyBars } from "@/components/poll/TallyBars";
import { useLiveResults } from "@/components/poll/useLiveResults";
import { Countdown } from "@/components/poll/Countdown";
import { VoteProgress } from "@/components/poll/VoteProgress";
import { pollIsCurrent } from "@/lib/session/views";
import { ProjectorPanel } from "./ProjectorPanel";
import type { ShownQuestion } from "@/components/questions/ProjectorQuestion";

/** The teacher's own projector window (same browser) presents the host key, so it still opens once the room is locked. */
function useStoredHostKey(code: string): string | undefined | null {
  const [key, setKey] = useState<string | undefined | null>(null);
  useEffect(() => setKey(readHostKey(code)), [code]);
  return key;
}

export function ProjectorView({ code }: { code: string }) {
  const hostKey = useStoredHostKey(code);
  if (hostKey === null) return null;
  return (
    // `data-projector` sizes the page's rem to the screen (globals.css): the same layout at 1920x1080 and 1280x720.
    <div data-projector="">
      <LiveSessionProvider role="projector" code={code} hostKey={hostKey}>
        <SessionGate>
          <Projector code={code} />
        </SessionGate>
      </LiveSessionProvider>
    </div>
  );
}

/**
 * The projector, read from the back row: the diagram across the screen in
 * the screen's own pixels, the way in (QR and address) while the room is
 * open, no controls. The teacher's console chooses the side panel and what
 * it shows; poll results appear only when the teacher shows them.
 */
function Projector({ code }: { code: string }) {
  const snapshot = usePublicSnapshot();
  const { diagram, scenario, custom } = useLessonDiagram(snapshot);
  // The Kubernetes side panels (objects, topology, comparison) belong to the built-in lesson only.
  const panel = custom ? "none" : snapshot.projectorPanel;
  const shownQuestion = useShownQuestion(snapshot);
  const poll = snapshot.poll && pollIsCurrent(snapshot.poll, snapshot) && snapshot.status !== "ended" ? snapshot.poll : null;
  // A poll takes the side panel's place while it is on; objects need the widest column (YAML, whole event messages).
  const side = poll
    ? "30rem"
    : panel === "objects"
      ? snapshot.projectorFocus.object === "events"
        ? "42rem"
        : "36rem"
      : panel !== "none"
        ? "32rem"
        : null;
  return (
    <div
      className="grid h-screen grid-rows-[auto_minmax(0,1fr)] gap-[0.4rem] overflow-hidden p-[0.5rem]"
      data-testid="projector"
      data-state={snapshot.status}
    >
      <header className="flex items-start gap-[1rem]">
        <div className="min-w-0 flex-1 space-y-[0.3rem]">
          <StepHeader scenario={diagram} snapshot={snapshot} large />
          {!custom && (
            <div className="flex flex-wrap items-center gap-[0.5rem] text-[0.875rem]">
              <ModeBadge mode={snapshot.mode} scenario={scenario} large />
              <ModeSwitchNotice snapshot={snapshot} />
            </div>
          )}
        </div>
        <RoomCard code={code} snapshot={snapshot} />
      </header>
      {snapshot.status !== "ended" && <ClassPaused paused={snapshot.paused} large />}
      <div className="grid min-h-0 gap-[0.5rem]" style={{ gridTemplateColumns: side ? `minmax(0,1fr) ${side}` : "minmax(0,1fr)" }}>
        <div className="min-h-0 min-w-0">
          {custom ? (
            <SequenceDiagram scenario={diagram} stepIndex={snapshot.stepIndex} large className="h-full max-h-full w-full" />
          ) : (
            <ProjectorDiagram scenario={scenario} stepIndex={snapshot.stepIndex} question={shownQuestion} />
          )}
        </div>
        {poll ? (
          <ProjectorPoll poll={poll} snapshot={snapshot} />
        ) : (
          panel !== "none" && (
            <ProjectorPanel panel={panel} focus={snapshot.projectorFocus} scenario={scenario} stepIndex={snapshot.stepIndex} />
          )
        )}
      </div>
    </div>
  );
}

/** The question the teacher put on the projector (its text comes from the questions channel, its id with the snapshot). */
function useShownQuestion(snapshot: PublicSnapshot): ShownQuestion | null {
  const questions = useLive((s) => s.questions);
  const id = snapshot.questions.shownId;
  if (!id || snapshot.status === "ended" || questions?.audience !== "public") return null;
  const q = questions.questions.find((x) => x.id === id);
  return q ? { ...q, sameScenario: q.mode === snapshot.mode && q.variant === snapshot.variant } : null;
}

/** Top right: how to join while the room is open (QR, address, code), that it is locked, or that it has ended. */
function RoomCard({ code, snapshot }: { code: string; snapshot: PublicSnapshot }) {
  const joinInfo = useJoinInfo(code, snapshot.status !== "ended");
  const info = joinInfo.status === "ok" ? joinInfo.info : null;
  if (snapshot.status === "ended") {
    return (
      <p
        className="shrink-0 rounded-2xl border-2 border-slate-500 bg-slate-900 px-[0.8rem] py-[0.5rem] text-[1.5rem] font-semibold"
        role="status"
        data-testid="session-ended"
      >
        This session has ended.
      </p>
    );
  }
  const students = `${snapshot.participantCount} ${snapshot.participantCount === 1 ? "student" : "students"}`;
  if (snapshot.locked) {
    return (
      <div
        className="shrink-0 rounded-2xl border-2 border-amber-300/80 bg-slate-900 px-[0.8rem] py-[0.5rem] text-right"
        data-testid="room-locked"
      >
        <p className="text-[1.25rem] font-semibold text-amber-200">Room locked: nobody new can join</p>
        <p className="font-mono text-[2.5rem] font-bold leading-tight tracking-[0.2em]" data-testid="room-code">
          {code}
        </p>
        <p className="text-base text-slate-200">{students}</p>
      </div>
    );
  }
  const address = info ? info.joinUrl.replace(/^https?:\/\//, "") : `…/join/${code}`;
  return (
    <div className="flex shrink-0 items-center gap-[0.6rem] rounded-2xl border border-slate-600 bg-slate-900 p-[0.4rem]">
      {info && (
        // The SVG is generated by the server from the join URL; it contains no user input.
        <div
          className="h-[7.5rem] w-[7.5rem] shrink-0 rounded-lg bg-white p-[0.25rem] [&_svg]:h-full [&_svg]:w-full"
          role="img"
          aria-label={`QR code to join: ${info.joinUrl}`}
          data-testid="projector-qr"
          dangerouslySetInnerHTML={{ __html: info.qrSvg }}
        />
      )}
      <div className="pr-[0.3rem]">
        <p className="text-[0.875rem] text-slate-200">Join on your phone</p>
        <p className="font-mono text-base font-semibold text-sky-200" data-testid="projector-join">
          {address}
        </p>
        <p className="text-[0.875rem] text-slate-200">
          code{" "}
          <span data-testid="room-code" className="font-mono text-[2.5rem] font-bold leading-tight tracking-[0.15em] text-white">
            {code}
          </span>
        </p>
        <p className="text-[0.875rem] text-slate-200">{students}</p>
      </div>
    </div>
  );
}

/** The poll on the projector: the question, its options, how many have voted; counts only once the teacher shows them. */
function ProjectorPoll({ poll, snapshot }: { poll: PublicPoll; snapshot: PublicSnapshot }) {
  const results = useLiveResults(poll, snapshot.rev);
  const voted = results ? results.total : poll.voted;
  return (
    <section
      className="min-h-0 overflow-hidden rounded-2xl border-2 border-violet-400/70 bg-slate-900 p-[0.6rem]"
      aria-labelledby="projector-poll"
      data-testid="projector-poll"
    >
      <p className="text-[1rem] font-semibold uppercase tracking-widest text-violet-300">
        {poll.status === "open" ? "Vote on your phone" : poll.revealed ? "The answer" : "Poll closed"}{" "}
        {poll.status === "open" && <Countdown closesAt={poll.closesAt} />}
      </p>
      <h2 id="projector-poll" className="mt-[0.2rem] text-[1.4rem] font-bold leading-snug">
        {poll.question}
      </h2>
      {poll.status === "open" && (
        <VoteProgress voted={voted} total={snapshot.participantCount} className="mt-[0.3rem] text-[1.1rem] text-slate-100" />
      )}
      {results ? (
        <div className="mt-[0.5rem]" aria-live="polite">
          <TallyBars options={poll.options} results={results} correctOptionId={poll.correctOptionId} large />
          {poll.revealed && poll.correctOptionId && (
            <p className="mt-[0.4rem] text-[1rem] text-emerald-200">{poll.options.find((o) => o.id === poll.correctOptionId)?.note}</p>
          )}
        </div>
      ) : (
        <ol className="mt-[0.5rem] space-y-[0.3rem] text-[1.05rem]">
          {poll.options.map((o) => (
            <li key={o.id} className="rounded-xl bg-slate-800 px-[0.5rem] py-[0.3rem]">
              {o.text}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
