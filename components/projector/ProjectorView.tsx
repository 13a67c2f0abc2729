"use client";

import { useEffect, useState, type ReactNode } from "react";
import { useTranslations } from "next-intl";
import { readHostKey } from "@/components/live/hostKeyStore";
import { useJoinInfo } from "@/components/classroom/useJoinInfo";
import { useLessonDiagram } from "@/components/live/useLesson";
import { SequenceDiagram } from "@/components/diagram/SequenceDiagram";
import type { PublicPoll, PublicSnapshot } from "@/lib/session/views";
import { LiveSessionProvider, useLive, usePublicSnapshot } from "@/components/live/LiveSession";
import { SessionGate } from "@/components/classroom/SessionGate";
import { ClassPaused } from "@/components/classroom/ClassPaused";
import { ModeBadge, StepHeader } from "@/components/classroom/StepHeader";
import { ModeSwitchNotice } from "@/components/classroom/ModeSwitchNotice";
import { TallyBars } from "@/components/poll/TallyBars";
import { useLiveResults } from "@/components/poll/useLiveResults";
import { Countdown } from "@/components/poll/Countdown";
import { VoteProgress } from "@/components/poll/VoteProgress";
import { type LessonNames } from "@/lib/session/questions";
import { useDescribeTarget } from "@/components/i18n/useDescribeTarget";
import { RoomLanguage } from "./RoomLanguage";
import { ProjectorPanel } from "./ProjectorPanel";
import { useFitToHeight } from "./useFitToHeight";
import type { ShownQuestion } from "@/components/questions/ProjectorQuestion";
import { LIFELINES } from "@/lib/lesson/card";

/** Words shown as their author wrote them (a session's title, a room code). */
const asWritten = (chunks: ReactNode) => <span translate="no">{chunks}</span>;

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
          <RoomLanguage>
            <Projector code={code} />
          </RoomLanguage>
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
  const t = useTranslations("projector");
  const snapshot = usePublicSnapshot();
  const { diagram, scenario, custom } = useLessonDiagram(snapshot);
  const shownQuestion = useShownQuestion(snapshot, custom ? diagram : undefined);
  // What is beside the diagram is the server's one answer (lib/session/projectorSide.ts), the same the console shows as chosen.
  const chosen = snapshot.projectorSide;
  const poll = chosen === "poll" ? snapshot.poll : null;
  // The Kubernetes side panels (objects, topology, comparison) belong to the built-in lesson only.
  const panel = chosen === "poll" || custom ? "none" : chosen;
  // A poll is wider once revealed (every option's explanation shows); objects need the widest column (YAML, whole event messages).
  const side = poll
    ? poll.revealed
      ? "40rem"
      : "30rem"
    : panel === "objects"
      ? snapshot.projectorFocus.object === "events"
        ? "42rem"
        : "36rem"
      : panel !== "none"
        ? "32rem"
        : null;
  // The hook's names (DESIGN.md): the Events view of the objects panel is "events", the deep dives "under-the-hood".
  const shown = poll
    ? "poll"
    : panel === "none"
      ? ""
      : panel === "hood"
        ? "under-the-hood"
        : panel === "objects" && snapshot.projectorFocus.object === "events"
          ? "events"
          : panel;
  return (
    <main
      className="grid h-screen grid-rows-[auto_minmax(0,1fr)] gap-[0.4rem] overflow-hidden p-[0.5rem]"
      data-testid="projector"
      data-state={snapshot.status}
    >
      <h1 className="sr-only">
        {/* The session's title and the room code are the teacher's and the room's: never translated. */}
        {snapshot.title ? t.rich("heading", { title: snapshot.title, name: asWritten }) : t.rich("headingRoom", { code, room: asWritten })}
      </h1>
      <header className="flex items-start gap-[1rem]">
        <div className="min-w-0 flex-1 space-y-[0.3rem]">
          {/* The built-in lesson's own words are English until they are translated; a teacher's are as they wrote them. */}
          <StepHeader scenario={diagram} snapshot={snapshot} large lessonLang={custom ? undefined : "en"} />
          {!custom && (
            <div className="flex flex-wrap items-center gap-[0.5rem] text-[0.875rem]">
              <ModeBadge mode={snapshot.mode} scenario={scenario} version={snapshot.kubeVersion} large />
              <ModeSwitchNotice snapshot={snapshot} />
            </div>
          )}
        </div>
        <RoomCard code={code} snapshot={snapshot} large={side === null} />
      </header>
      {snapshot.status !== "ended" && <ClassPaused paused={snapshot.paused} large />}
      <div className="grid min-h-0 gap-[0.5rem]" style={{ gridTemplateColumns: side ? `minmax(0,1fr) ${side}` : "minmax(0,1fr)" }}>
        {/* One renderer for the built-in lesson and a teacher's own, filling the screen's own pixels. */}
        {/* Left to right in every language: the lifelines keep their order (You on the left). */}
        <div
          className="min-h-0 min-w-0"
          data-testid="projector-diagram"
          dir="ltr"
          lang={custom ? undefined : "en"}
          translate={custom ? "no" : undefined}
        >
          <SequenceDiagram
            scenario={diagram}
            stepIndex={snapshot.stepIndex}
            fit="screen"
            question={shownQuestion}
            className="h-full w-full"
          />
        </div>
        {/* One element names what is beside the diagram (empty: the diagram alone), whatever it is. */}
        <div
          className={side ? "flex min-h-0 min-w-0 flex-col [&>*]:min-h-0 [&>*]:flex-1" : "hidden"}
          data-testid="projector-panel"
          data-panel={shown}
          data-object={panel === "objects" ? snapshot.projectorFocus.object : undefined}
        >
          {poll ? (
            <ProjectorPoll poll={poll} snapshot={snapshot} custom={custom} />
          ) : (
            panel !== "none" && (
              <ProjectorPanel panel={panel} focus={snapshot.projectorFocus} scenario={scenario} stepIndex={snapshot.stepIndex} />
            )
          )}
        </div>
      </div>
    </main>
  );
}

/**
 * The question the teacher put on the projector (its text comes from the questions channel, its id with the snapshot),
 * named from the lesson on screen: a teacher's lesson names its own steps and lifelines.
 */
function useShownQuestion(snapshot: PublicSnapshot, lesson: LessonNames | undefined): ShownQuestion | null {
  const questions = useLive((s) => s.questions);
  const t = useTranslations("projector");
  const tq = useTranslations("questions");
  const describe = useDescribeTarget(lesson);
  const id = snapshot.questions.shownId;
  if (!id || snapshot.status === "ended" || questions?.audience !== "public") return null;
  const q = questions.questions.find((x) => x.id === id);
  if (!q) return null;
  const header = (about: string) => t("question", { about, votes: q.votes, status: q.status });
  // A long step title is on the drawing already: the short header says only which step and element.
  const step = tq("step", { step: q.target.stepIndex + 1 });
  const target = q.target;
  const element =
    target.kind === "step"
      ? step
      : target.kind === "lifeline"
        ? tq("lifeline", { step, name: lifelineName(target.lifeline, lesson) })
        : tq("element", { step, kind: target.kind });
  return {
    ...q,
    sameScenario: q.mode === snapshot.mode && q.variant === snapshot.variant,
    header: header(describe(q)),
    shortHeader: header(element),
  };
}

function lifelineName(id: string, lesson: LessonNames | undefined): string {
  return (lesson ? lesson.lifelines : LIFELINES).find((l) => l.id === id)?.name ?? id;
}

/**
 * Top right: how to join while the room is open (QR, address, code), that it is locked, or that it has ended.
 * Beside the diagram alone the QR code is large enough to scan from the back row (300 px at 1080p); when the
 * teacher puts a panel or a poll beside the diagram, the panel needs the height and the code stays readable.
 */
function RoomCard({ code, snapshot, large }: { code: string; snapshot: PublicSnapshot; large: boolean }) {
  const t = useTranslations("projector");
  const joinInfo = useJoinInfo(code, snapshot.status !== "ended");
  const info = joinInfo.status === "ok" ? joinInfo.info : null;
  if (snapshot.status === "ended") {
    return (
      <p
        className="shrink-0 rounded-2xl border-2 border-slate-500 bg-slate-900 px-[0.8rem] py-[0.5rem] text-[1.5rem] font-semibold"
        role="status"
        data-testid="session-ended"
      >
        {t("ended")}
      </p>
    );
  }
  const students = t("students", { count: snapshot.participantCount });
  if (snapshot.locked) {
    return (
      <div
        className="shrink-0 rounded-2xl border-2 border-amber-300/80 bg-slate-900 px-[0.8rem] py-[0.5rem] text-end"
        data-testid="room-locked"
      >
        <p className="text-[1.25rem] font-semibold text-amber-200">{t("locked")}</p>
        <p className="font-mono text-[2.5rem] font-bold leading-tight tracking-[0.2em]" data-testid="room-code" translate="no">
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
        <>
          {/* The SVG is generated by the server from the join URL; it contains no user input. */}
          <div
            className={`${large ? "h-[12.75rem] w-[12.75rem]" : "h-[7.5rem] w-[7.5rem]"} shrink-0 rounded-lg bg-white p-[0.3rem] [&_svg]:h-full [&_svg]:w-full`}
            role="img"
            aria-labelledby="projector-qr-label"
            data-testid="projector-qr"
            dangerouslySetInnerHTML={{ __html: info.qrSvg }}
          />
          {/* Named in the screen's language, the address as it is (an address is never translated); a name, not shown. */}
          <span id="projector-qr-label" hidden>
            {t.rich("qr", {
              url: info.joinUrl,
              link: (chunks) => (
                <bdi dir="ltr" translate="no">
                  {chunks}
                </bdi>
              ),
            })}
          </span>
        </>
      )}
      <div className="pe-[0.3rem]">
        <p className="text-[0.875rem] text-slate-200">{t("joinOnPhone")}</p>
        {/* An address: left to right, never translated. */}
        <p className="font-mono text-base font-semibold text-sky-200" data-testid="projector-join" dir="ltr" translate="no">
          {address}
        </p>
        <p className="text-[0.875rem] text-slate-200">
          {t.rich("code", {
            room: (chunks) => (
              <span
                data-testid="room-code"
                translate="no"
                className="font-mono text-[2.5rem] font-bold leading-tight tracking-[0.15em] text-white"
              >
                {chunks}
              </span>
            ),
            code,
          })}
        </p>
        <p className="text-[0.875rem] text-slate-200">{students}</p>
      </div>
    </div>
  );
}

/** The poll on the projector: the question, its options, how many have voted; counts only once the teacher shows them. */
function ProjectorPoll({ poll, snapshot, custom }: { poll: PublicPoll; snapshot: PublicSnapshot; custom: boolean }) {
  const t = useTranslations("projector");
  const words = pollWords(poll, custom);
  const results = useLiveResults(poll, snapshot.rev);
  const voted = results ? results.total : poll.voted;
  // Every option shows whole: a long poll is set a little smaller (sizes below are in em) rather than cut off.
  const [ref, scale] = useFitToHeight<HTMLElement>(`${poll.id}:${poll.round}:${poll.status}:${poll.revealed}`);
  return (
    <section
      ref={ref}
      className="min-h-0 overflow-hidden rounded-2xl border-2 border-violet-400/70 bg-slate-900 p-[0.6rem]"
      style={{ fontSize: `${scale}rem` }}
      aria-labelledby="projector-poll"
      data-testid="projector-poll"
    >
      <div className="flex items-start justify-between gap-[0.5em]">
        <p className="text-[1em] font-semibold uppercase tracking-widest text-violet-300">
          {poll.status === "open"
            ? snapshot.paused
              ? t("votingPaused")
              : t("voteOnPhone")
            : poll.revealed
              ? t("theAnswer")
              : t("pollClosed")}
        </p>
        {/* Large enough for the back row: a ring that empties, the seconds inside (rem: not shrunk with a long poll). */}
        {poll.status === "open" && <Countdown closesAt={poll.closesAt} large />}
      </div>
      <h2 id="projector-poll" {...words} className={`mt-[0.2em] font-bold leading-snug ${poll.revealed ? "text-[1.2em]" : "text-[1.4em]"}`}>
        {poll.question}
      </h2>
      {poll.status === "open" && (
        <VoteProgress voted={voted} total={snapshot.participantCount} className="mt-[0.3em] text-[1.1em] text-slate-100" />
      )}
      {results ? (
        // Once revealed, every option with why it is right or wrong (the class learns from the wrong ones too),
        // set a little smaller so four options and their explanations fit beside the diagram.
        <div className={`mt-[0.5em] ${poll.revealed ? "text-[1em] leading-snug" : ""}`} aria-live="polite">
          <TallyBars
            options={poll.options}
            optionWords={words}
            results={results}
            correctOptionId={poll.correctOptionId}
            large={!poll.revealed}
            notes={poll.revealed}
          />
        </div>
      ) : (
        <ol className="mt-[0.5em] space-y-[0.3em] text-[1.05em]" {...words}>
          {poll.options.map((o) => (
            <li key={o.id} className="rounded-xl bg-slate-800 px-[0.5em] py-[0.3em]">
              {o.text}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/**
 * Whose words a poll's question and options are: a teacher's (their own poll, or one made from their lesson) are shown
 * as written and never translated; the built-in lesson's are its English until the lesson is translated.
 */
export function pollWords(poll: Pick<PublicPoll, "kind">, custom: boolean): { lang?: string; translate?: "no" } {
  return poll.kind === "custom" || custom ? { translate: "no" } : { lang: "en" };
}
