"use client";

import { useEffect, useRef, useState, type ReactNode } from "react";
import { useTranslations } from "next-intl";
import { useLessonDiagram } from "@/components/live/useLesson";
import { LiveSessionProvider, useHostSnapshot, useLive, useSend } from "@/components/live/LiveSession";
import { ErrorScreen } from "@/components/classroom/ErrorScreen";
import { SessionGate } from "@/components/classroom/SessionGate";
import { useJoinInfo } from "@/components/classroom/useJoinInfo";
import { readHostKey, saveHostKey } from "@/components/live/hostKeyStore";
import { SequenceDiagram } from "@/components/diagram/SequenceDiagram";
import { ModeBadge, StepHeader } from "@/components/classroom/StepHeader";
import { ModeSwitchNotice } from "@/components/classroom/ModeSwitchNotice";
import { FidelityNotes } from "@/components/classroom/FidelityNotes";
import { LabLink } from "@/components/classroom/LabLink";
import { LessonPanels } from "@/components/lessonPanels/LazyPanels";
import { JoinPanel } from "./JoinPanel";
import { StepControls } from "./StepControls";
import { ModeSwitch } from "./ModeSwitch";
import { VersionSwitch } from "./VersionSwitch";
import { PollControls } from "./PollControls";
import { Participants } from "./Participants";
import { ProjectorPanelSwitch } from "./ProjectorPanelSwitch";
import { ProjectorLanguageSelect } from "@/components/projector/ProjectorLanguageSelect";
import { focusIfLost } from "./focus";
import { ConfirmButton } from "./ConfirmButton";
import { stepNumber } from "@/lib/lesson/stepNumbers";
import { LanguageSwitch } from "@/components/i18n/LanguageSwitch";
import { useErrorText } from "@/components/i18n/useErrorText";
import { NewQuestionsCount } from "./NewQuestionsCount";
import { useShowAnswer } from "./useShowAnswer";
import { HostQuestions, LookingBackCount } from "@/components/questions/HostQuestions";

/** Reads the host key from the URL fragment (then forgets it there) or from this browser's storage. */
function useHostKey(code: string): string | null | undefined {
  const [key, setKey] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    const fromHash = new URLSearchParams(window.location.hash.slice(1)).get("key");
    if (fromHash) {
      saveHostKey(code, fromHash);
      // Keep the key off the screen (and out of screenshots of the address bar).
      history.replaceState(null, "", window.location.pathname + window.location.search);
      setKey(fromHash);
      return;
    }
    setKey(readHostKey(code) ?? null);
  }, [code]);
  return key;
}

/** A teacher's or a student's own words (a title, a room code): shown as written, never the interface's to translate. */
export const own = (chunks: ReactNode) => <span translate="no">{chunks}</span>;

export function HostConsole({ code }: { code: string }) {
  const t = useTranslations("console");
  const errors = useTranslations("errors");
  const hostKey = useHostKey(code);
  const exists = useJoinInfo(code, hostKey === null).status;
  if (hostKey === undefined || (hostKey === null && exists === "checking"))
    return <main className="p-6 text-slate-300">{t("loading")}</main>;
  if (hostKey === null && exists === "missing")
    return <ErrorScreen error={{ code: "NO_SUCH_SESSION", message: errors("NO_SUCH_SESSION") }} code={code} />;
  if (hostKey === null) return <ErrorScreen error={{ code: "NOT_HOST", message: t("notHost", { code }) }} code={code} />;
  return (
    <LiveSessionProvider role="host" code={code} hostKey={hostKey}>
      <SessionGate>
        <Console code={code} />
      </SessionGate>
    </LiveSessionProvider>
  );
}

/** A skip link's click: move focus to the control itself (the link's target is its section, for no-JS). */
function skipTo(id: string) {
  return (e: React.MouseEvent<HTMLAnchorElement>) => {
    const target = document.getElementById(id);
    if (target instanceof HTMLButtonElement && !target.disabled) {
      e.preventDefault();
      target.focus();
    }
  };
}

function Console({ code }: { code: string }) {
  const t = useTranslations("console");
  const classroom = useTranslations("classroom");
  const errorText = useErrorText();
  const snapshot = useHostSnapshot();
  const connection = useLive((s) => s.connection);
  const lastError = useLive((s) => s.lastError);
  const send = useSend();
  const { diagram, scenario, custom, langOf } = useLessonDiagram(snapshot);
  // Whose words the lesson's are: a teacher's own lesson is theirs, never translated; the built-in one's step titles
  // are names, spelled in English everywhere.
  const titleWords = custom ? ({ translate: "no" } as const) : ({ lang: "en" } as const);
  const step = diagram.steps[snapshot.stepIndex];
  const next = diagram.steps[snapshot.stepIndex + 1];
  const ended = snapshot.status === "ended";
  const endedRef = useRef<HTMLAnchorElement>(null);
  const [showAnswer, setShowAnswer] = useShowAnswer();
  // While a "what happens next?" poll is open, what comes next is the answer: hidden on a screen the class may see.
  const guessing = snapshot.poll?.kind === "next-step" && snapshot.poll.status !== "revealed" && !showAnswer && !ended;
  const nextNumber = stepNumber(diagram.steps, snapshot.stepIndex + 1);
  const nextPreview = () => {
    if (!next) return t("lastStep");
    const { ordinal: step, card } = nextNumber;
    const parts = { step, title: next.title, narration: next.narration };
    return card === null ? t("nextPreview", parts) : t("nextPreviewCard", { ...parts, card: classroom("cardStep", { card }) });
  };
  // "End session" disappears with the session: focus goes to what is left to do (the replay).
  useEffect(() => {
    if (ended) focusIfLost(endedRef.current);
  }, [ended]);

  return (
    // On a laptop or wider (xl, 1280 px) the console is one screen: the header stays, and the lesson (left) and the
    // teacher's tools (right) scroll on their own, so a growing card never moves what the teacher is looking at.
    <div className="xl:flex xl:h-screen xl:flex-col" data-testid="console" data-state={snapshot.status}>
      {/* The first Tab: straight to the step and poll controls, past the header. */}
      <nav aria-label={t("skipLinks")}>
        <a
          href="#step-controls"
          onClick={skipTo("next-step")}
          className="sr-only rounded-lg bg-sky-400 px-3 py-2 font-semibold text-slate-950 focus:not-sr-only focus:fixed focus:left-2 focus:top-2 focus:z-50 focus:shadow-lg"
          data-testid="skip-link"
        >
          {t("skipToSteps")}
        </a>
        <a
          href="#poll-heading"
          onClick={skipTo("poll-first")}
          className="sr-only rounded-lg bg-sky-400 px-3 py-2 font-semibold text-slate-950 focus:not-sr-only focus:fixed focus:left-2 focus:top-2 focus:z-50 focus:shadow-lg"
        >
          {t("skipToPoll")}
        </a>
      </nav>
      <header
        className="sticky top-0 z-20 flex flex-wrap items-center justify-between gap-x-4 gap-y-2 border-b border-slate-800 bg-slate-950/95 py-2 ps-4 pe-4 sm:pe-48 lg:ps-6 xl:static"
        data-testid="console-header"
      >
        <div className="flex min-w-0 flex-wrap items-baseline gap-x-3">
          <h1 className="min-w-0 text-sm uppercase tracking-widest text-slate-300 [overflow-wrap:anywhere]">
            {snapshot.title ? t.rich("headingTitled", { title: snapshot.title, own }) : t("heading")}
          </h1>
          <p className="flex items-baseline gap-2">
            <span className="text-sm text-slate-300">{t("roomCode")}</span>
            <span data-testid="room-code" translate="no" dir="ltr" className="font-mono text-3xl font-bold tracking-[0.2em] text-white">
              {code}
            </span>
          </p>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <p className={`rounded-lg bg-slate-800 px-3 py-2 ${ended ? "text-slate-300" : ""}`} aria-live="polite">
            {t.rich(ended ? "studentsAtEnd" : "studentsConnected", {
              count: snapshot.participantCount,
              n: (chunks) => (
                <span data-testid="participant-count" className="font-bold tabular-nums">
                  {chunks}
                </span>
              ),
            })}
          </p>
          {!ended && <LookingBackCount />}
          <NewQuestionsCount />
          <span
            className={`rounded-lg px-3 py-2 ${ended ? "bg-slate-700 text-slate-100" : connection === "connected" ? "bg-emerald-900/60 text-emerald-200" : "bg-amber-900/60 text-amber-100"}`}
            role="status"
            data-testid="console-status"
          >
            {ended ? t("ended") : connection === "connected" ? t("live") : t("reconnecting")}
          </span>
          {!ended && (
            <button
              type="button"
              data-testid="room-lock"
              aria-pressed={snapshot.locked}
              onClick={() => void send("room:lock", { locked: !snapshot.locked })}
              title={snapshot.locked ? t("unlockTitle") : t("lockTitle")}
              className={`rounded-lg px-3 py-2 font-semibold ${snapshot.locked ? "bg-amber-200 text-slate-950 hover:bg-amber-100" : "border border-slate-500 hover:bg-slate-800"}`}
            >
              {snapshot.locked ? t("unlock") : t("lock")}
            </button>
          )}
          {!ended && (
            <button
              type="button"
              data-testid="pause-class"
              aria-pressed={snapshot.paused}
              onClick={() => void send("class:pause", { paused: !snapshot.paused })}
              title={t("pauseTitle")}
              className={`rounded-lg px-3 py-2 font-semibold ${snapshot.paused ? "bg-amber-300 text-slate-950 hover:bg-amber-200" : "border border-amber-300/70 text-amber-100 hover:bg-slate-800"}`}
            >
              {snapshot.paused ? t("resume") : t("pause")}
            </button>
          )}
          <a
            href={`/present/${code}`}
            target="_blank"
            rel="noopener"
            data-testid="open-projector"
            className="rounded-lg border border-slate-500 px-3 py-2 font-semibold hover:bg-slate-800"
          >
            {t("openProjector")}
          </a>
          {!ended && (
            <ConfirmButton
              testId="end-session"
              question={t("endQuestion")}
              confirmLabel={t("endSession")}
              onConfirm={() => void send("session:end", {})}
              className="rounded-lg border border-rose-400/60 px-3 py-2 font-semibold text-rose-200 hover:bg-rose-950"
            >
              {t("endSession")}
            </ConfirmButton>
          )}
        </div>
      </header>
      {/* DOM order is Tab order: the step controls, the teacher's tools, then the diagram and panels. On a laptop or
          wider the step controls stay at the top left, the diagram scrolls below them and the tools scroll on the right:
          the tools span both rows without sizing the first (the second is the flexible one), so nothing moves. */}
      <main
        id="console-main"
        className="px-4 pb-6 lg:px-6 xl:grid xl:min-h-0 xl:flex-1 xl:grid-cols-[minmax(0,1fr)_400px] xl:grid-rows-[auto_minmax(0,1fr)] xl:gap-x-6 xl:pb-0 2xl:grid-cols-[minmax(0,1fr)_440px]"
      >
        <div className="min-w-0 space-y-4 pt-4 xl:col-start-1 xl:row-start-1" data-testid="console-steps">
          {ended && (
            <p role="status" className="rounded-lg bg-slate-800 p-3 text-lg">
              {t.rich("endedNotice", {
                replay: (chunks) => (
                  <a
                    ref={endedRef}
                    href={`/replay/${snapshot.sessionId}`}
                    className="font-semibold text-sky-300 underline"
                    data-testid="replay-link"
                  >
                    {chunks}
                  </a>
                ),
                sessions: (chunks) => (
                  <a href="/sessions" className="text-sky-300 underline">
                    {chunks}
                  </a>
                ),
              })}
            </p>
          )}
          {lastError && (
            <p role="alert" className="rounded-lg bg-rose-950 px-3 py-2 text-rose-100">
              {errorText(lastError)}
            </p>
          )}
          <div className="flex flex-wrap items-start justify-between gap-4">
            <StepHeader scenario={diagram} snapshot={snapshot} />
            {!custom && (
              <ModeBadge mode={snapshot.mode} scenario={scenario} version={snapshot.kubeVersion} versionTestId="k8s-version-label" />
            )}
          </div>
          {!custom && <ModeSwitchNotice snapshot={snapshot} />}
          <StepControls scenario={diagram} stepIndex={snapshot.stepIndex} disabled={ended} hideFuture={guessing} titleWords={titleWords} />
        </div>
        <aside
          className="mt-6 min-w-0 space-y-4 xl:col-start-2 xl:row-span-2 xl:row-start-1 xl:mt-0 xl:min-h-0 xl:overflow-y-auto xl:py-4 xl:pr-1"
          aria-label={t("tools")}
          data-testid="console-tools"
        >
          {/* What the projector shows comes first: it never moves when the poll card below it grows. */}
          <div className="xl:sticky xl:top-0 xl:z-10 xl:bg-slate-950 xl:pb-1">
            <ProjectorPanelSwitch snapshot={snapshot} disabled={ended} custom={custom} />
          </div>
          <PollControls snapshot={snapshot} disabled={ended} custom={custom} showAnswer={showAnswer} onShowAnswer={setShowAnswer} />
          <HostQuestions snapshot={snapshot} disabled={ended} />
          <section className="rounded-xl border border-slate-700 bg-slate-900/70 p-4" aria-labelledby="notes-heading">
            <h2 id="notes-heading" className="text-lg font-semibold">
              {t("speakerNotes")}
            </h2>
            <p
              className="mt-2 text-slate-200"
              data-testid="speaker-notes"
              lang={langOf(step?.speakerNotes)}
              translate={custom ? "no" : undefined}
            >
              {step?.speakerNotes}
            </p>
            <h3 className="mt-4 text-sm font-semibold uppercase tracking-wider text-slate-300">{t("comingNext")}</h3>
            <p className="mt-1 text-slate-300" data-testid="next-preview">
              {guessing ? t("nextHidden") : nextPreview()}
            </p>
          </section>
          {/* Binding modes belong to the Kubernetes lesson only. */}
          {!custom && <ModeSwitch snapshot={snapshot} disabled={ended} />}
          {!custom && <VersionSwitch snapshot={snapshot} disabled={ended} />}
          {/* The projector is one screen for the room: the teacher picks its language (projector:language). */}
          <ProjectorLanguageSelect className="px-1" />
          <JoinPanel code={code} />
          <Participants snapshot={snapshot} disabled={ended} />
        </aside>
        <div
          className="min-w-0 space-y-4 pt-4 xl:col-start-1 xl:row-start-2 xl:min-h-0 xl:overflow-y-auto xl:pb-6 xl:pr-2"
          data-testid="console-lesson"
        >
          {/* On a wide screen the inspector sits beside the diagram; on a laptop, below it. */}
          <div className="grid grid-cols-[minmax(0,1fr)] gap-4 2xl:grid-cols-[minmax(0,1fr)_minmax(0,560px)]">
            <div className="rounded-2xl border border-slate-800 bg-slate-950/60 p-2">
              <SequenceDiagram scenario={diagram} stepIndex={snapshot.stepIndex} className="h-auto w-full" />
            </div>
            {!custom && <LessonPanels scenario={scenario} stepIndex={snapshot.stepIndex} audience="host" />}
          </div>
          {!custom && <FidelityNotes version={snapshot.kubeVersion} />}
          {!custom && <LabLink mode={snapshot.mode} variant={snapshot.variant} version={snapshot.kubeVersion} />}
        </div>
      </main>
      {/* Drawn in the header's top corner (the header keeps room for it), but last in the Tab order: the language is
          chosen once, and the class's controls stay the first Tabs from the top. On a phone-sized window the header has
          no room to spare: the switch sits at the end of the page instead. */}
      <div className="px-4 pb-4 sm:fixed sm:end-4 sm:top-3 sm:z-30 sm:p-0 lg:end-6" data-testid="console-language">
        <LanguageSwitch />
      </div>
    </div>
  );
}
