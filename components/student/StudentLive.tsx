"use client";

import { useTranslations } from "next-intl";
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode, type RefObject } from "react";
import { useLessonDiagram } from "@/components/live/useLesson";
import type { LessonDiagram } from "@/lib/lesson/model";
import type { PublicSnapshot } from "@/lib/session/views";
import { LiveSessionProvider, useLive, usePublicSnapshot } from "@/components/live/LiveSession";
import { SessionGate } from "@/components/classroom/SessionGate";
import { SequenceDiagram } from "@/components/diagram/SequenceDiagram";
import { StepTrail } from "@/components/diagram/StepTrail";
import { ModeBadge, StepHeader } from "@/components/classroom/StepHeader";
import { ModeSwitchNotice } from "@/components/classroom/ModeSwitchNotice";
import { FidelityNotes } from "@/components/classroom/FidelityNotes";
import { LabLink } from "@/components/classroom/LabLink";
import { StudentLessonPanels } from "@/components/lessonPanels/LazyPanels";
import { PollCard } from "@/components/poll/PollCard";
import { ClassPaused } from "@/components/classroom/ClassPaused";
import { PollAnnouncer } from "@/components/poll/PollAnnouncer";
import { targetKey } from "@/lib/session/questions";
import type { QuestionTarget } from "@/lib/session/types";
import type { ElementPicker } from "@/components/questions/picker";
import { StudentQuestions } from "@/components/questions/StudentQuestions";
import { LanguageSwitch } from "@/components/i18n/LanguageSwitch";
import { LookBackBar, useLookBack } from "./LookBack";
import { AskHere, useTappedElement, type AskAnchor } from "./AskHere";

/**
 * The phone in the class, once it has a nickname: the socket, the lesson, the
 * diagram, the poll and the questions. StudentView loads this module on its
 * own (components/student/liveScreen.ts), so the join form is interactive before all of it has
 * arrived; it starts fetching it as soon as the page is up.
 */
export function StudentLive({ code, nickname }: { code: string; nickname: string }) {
  return (
    <LiveSessionProvider role="student" code={code} nickname={nickname || undefined}>
      <SessionGate>
        <StudentScreen code={code} />
      </SessionGate>
    </LiveSessionProvider>
  );
}

function ConnectionStatus({ ended }: { ended: boolean }) {
  const t = useTranslations("student");
  const connection = useLive((s) => s.connection);
  const connected = connection === "connected";
  return (
    <p
      data-testid="connection-status"
      data-state={connected ? "connected" : "reconnecting"}
      data-ended={ended || undefined}
      role="status"
      className={`shrink-0 rounded-full px-3 py-1 text-sm font-semibold ${ended ? "bg-slate-700 text-slate-100" : connected ? "bg-emerald-900/70 text-emerald-200" : "bg-amber-800 text-amber-50"}`}
    >
      {/* Ended looks ended: not a green "connected" to a session that is over. */}
      {ended ? t("sessionEnded") : connected ? t("connected") : t("reconnecting")}
    </p>
  );
}

/**
 * A poll that opens while the student has scrolled away (into the inspector,
 * say) would go unseen: a banner at the top of the screen says so and takes
 * them there, and the phone vibrates where the browser allows it.
 */
function PollBanner({ poll }: { poll: PublicSnapshot["poll"] }) {
  const t = useTranslations("student");
  const [show, setShow] = useState(false);
  const key = poll && poll.status === "open" ? `${poll.id}:${poll.round}` : null;
  const seen = useRef<string | null | undefined>(undefined);
  useEffect(() => {
    const first = seen.current === undefined;
    const changed = key !== seen.current;
    seen.current = key;
    if (!key) return setShow(false);
    if (first || !changed) return;
    try {
      navigator.vibrate?.(200);
    } catch {
      // Not allowed here (no user gesture yet, or a desktop): the banner is enough.
    }
    const card = document.querySelector("[data-testid=poll-card]");
    const rect = card?.getBoundingClientRect();
    if (rect && rect.top >= 0 && rect.top < window.innerHeight - 80) return;
    setShow(true);
  }, [key]);
  useEffect(() => {
    if (!show) return;
    const card = document.querySelector("[data-testid=poll-card]");
    if (!card) return;
    // Gone as soon as the card is on screen, however the student got there.
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && setShow(false), { threshold: 0.3 });
    observer.observe(card);
    return () => observer.disconnect();
  }, [show]);
  if (!show) return null;
  return (
    <button
      type="button"
      data-testid="poll-banner"
      onClick={() => {
        const card = document.querySelector<HTMLElement>("[data-testid=poll-card]");
        card?.scrollIntoView({ block: "start", behavior: "smooth" });
        card?.querySelector<HTMLElement>("[data-testid=poll-option]")?.focus({ preventScroll: true });
        setShow(false);
      }}
      className="fixed inset-x-3 top-3 z-20 rounded-xl border-2 border-violet-300 bg-violet-500 px-4 py-3 text-start text-lg font-bold text-slate-950 shadow-2xl"
    >
      {t("pollBanner")}
    </button>
  );
}

/** The phone's full drawing opens on the current step, not scrolled to the left edge. */
function FullDiagram({
  scenario,
  stepIndex,
  picker,
  lessonLang,
}: {
  scenario: LessonDiagram;
  stepIndex: number;
  picker?: ElementPicker;
  lessonLang?: string;
}) {
  const t = useTranslations("student");
  const region = useRef<HTMLDivElement>(null);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (!open) return;
    const current = region.current?.querySelector("[data-current]");
    const box = region.current;
    if (!current || !box) return;
    const r = current.getBoundingClientRect();
    const b = box.getBoundingClientRect();
    // The current arrow's middle in the middle of the view, as far as the drawing goes.
    box.scrollLeft += r.left + r.width / 2 - (b.left + b.width / 2);
  }, [open, stepIndex]);
  return (
    <details className="mt-2" onToggle={(e) => setOpen(e.currentTarget.open)} data-testid="full-diagram">
      <summary className="cursor-pointer px-2 py-1 text-sky-200">{t("showFullDiagram")}</summary>
      {/* Lifelines keep their order in every language: the drawing (and its sideways scroll) is left to right. */}
      <div
        ref={region}
        dir="ltr"
        lang={lessonLang}
        className="mt-2 overflow-x-auto"
        tabIndex={0}
        role="region"
        aria-label={t("fullDiagramRegion")}
      >
        <SequenceDiagram scenario={scenario} stepIndex={stepIndex} className="h-auto w-[720px] max-w-none" picker={picker} />
      </div>
    </details>
  );
}

/**
 * The part of the diagram in focus for a question: what the student tapped,
 * while it is still on screen, else the step they are reading. Each part
 * shows how many of the class's questions are about it. A tap also opens the
 * ask box beside the element tapped (`askAt`).
 */
function useQuestionFocus(snapshot: PublicSnapshot, viewStep: number, tapped: RefObject<AskAnchor | null>) {
  const [picked, setPicked] = useState<QuestionTarget | null>(null);
  const [askAt, setAskAt] = useState<AskAnchor | null>(null);
  const scenarioKey = `${snapshot.mode}/${snapshot.variant}`;
  const [pickedIn, setPickedIn] = useState(scenarioKey);
  const questions = useLive((s) => s.questions);
  const counts = useMemo(() => {
    const map = new Map<string, number>();
    if (questions?.audience !== "public") return map;
    for (const q of questions.questions) {
      if (q.mode !== snapshot.mode || q.variant !== snapshot.variant || q.status === "pending") continue;
      const key = targetKey(q.target);
      map.set(key, (map.get(key) ?? 0) + 1);
    }
    return map;
  }, [questions, snapshot.mode, snapshot.variant]);
  const valid = picked !== null && pickedIn === scenarioKey && (picked.kind === "lifeline" || picked.stepIndex <= viewStep);
  // A lifeline is asked about at the step being read.
  const focus: QuestionTarget | null = valid ? (picked.kind === "lifeline" ? { ...picked, stepIndex: viewStep } : picked) : null;
  const picker: ElementPicker | undefined =
    snapshot.questions.mode === "off" || snapshot.status === "ended"
      ? undefined
      : {
          selected: focus ? targetKey(focus) : null,
          onSelect: (target) => {
            setPicked(target);
            setPickedIn(scenarioKey);
            setAskAt(tapped.current);
          },
          counts,
        };
  const closeAsk = useCallback(() => setAskAt(null), []);
  return {
    picker,
    focus,
    target: focus ?? { kind: "step" as const, stepIndex: viewStep },
    clear: () => {
      setPicked(null);
      setAskAt(null);
    },
    // Only while the tapped part is still the one in focus (a mode switch or looking back can take it away).
    askAt: picker && focus ? askAt : null,
    closeAsk,
  };
}

/** A rich message's tag around the class's own words (a title, a room code): read as written, never translated. */
const ownWords = (chunks: ReactNode) => <span translate="no">{chunks}</span>;

function StudentScreen({ code }: { code: string }) {
  const t = useTranslations("student");
  const common = useTranslations("common");
  const snapshot = usePublicSnapshot();
  const nickname = useLive((s) => s.welcome?.nickname);
  const { diagram, scenario, custom, lessonLang, langOf } = useLessonDiagram(snapshot);
  const lookBack = useLookBack(snapshot);
  // While looking back the diagram, the step and the inspector show the step being read; the class's step stays live above.
  const viewStep = lookBack.viewStep;
  const viewed = useMemo(() => ({ ...snapshot, stepIndex: viewStep }), [snapshot, viewStep]);
  const tap = useTappedElement();
  const question = useQuestionFocus(snapshot, viewStep, tap.tapped);
  return (
    <main className="mx-auto max-w-5xl space-y-4 px-3 py-3 sm:px-5">
      {/* The session's title, the room code and the nickname are the class's own words: never translated. */}
      <h1 className="sr-only">
        {snapshot.title
          ? t.rich("titleInRoom", { title: snapshot.title, code, name: ownWords, room: ownWords })
          : t.rich("classInRoom", { code, room: ownWords })}
      </h1>
      <header className="flex items-center justify-between gap-3">
        <p className="min-w-0 text-sm text-slate-300 [overflow-wrap:anywhere]">
          <span className="font-mono font-semibold tracking-widest text-white" translate="no" dir="ltr">
            {code}
          </span>
          {nickname && (
            <>
              {" · "}
              <span translate="no">{nickname}</span>
            </>
          )}
        </p>
        <div className="flex shrink-0 items-center gap-2">
          <LanguageSwitch compact />
          <ConnectionStatus ended={snapshot.status === "ended"} />
        </div>
      </header>
      {snapshot.status === "ended" && (
        <p role="status" className="rounded-lg bg-slate-800 p-3">
          {t("endedNotice")}
        </p>
      )}
      {snapshot.status !== "ended" && <ClassPaused paused={snapshot.paused} />}
      {!custom && <ModeBadge mode={snapshot.mode} scenario={scenario} version={snapshot.kubeVersion} />}
      {!custom && <ModeSwitchNotice snapshot={snapshot} />}
      <PollAnnouncer poll={snapshot.poll} />
      {snapshot.status !== "ended" && <PollBanner poll={snapshot.poll} />}
      {/* One card, in one place, from opening to reveal: it is not rebuilt when the answer comes. */}
      {snapshot.poll && snapshot.status !== "ended" && (
        <PollCard key={`${snapshot.poll.id}:${snapshot.poll.round}`} poll={snapshot.poll} paused={snapshot.paused} />
      )}
      {snapshot.status !== "ended" && <LookBackBar lookBack={lookBack} total={diagram.steps.length} />}
      {/* The built-in lesson's narration is in the reader's language where translated; its titles are the card's captions. */}
      <StepHeader
        scenario={diagram}
        snapshot={viewed}
        lessonLang={langOf(diagram.steps[viewStep]?.narration)}
        captionLang={custom ? undefined : "en"}
      />
      <section
        aria-label={common("diagram")}
        className="relative rounded-2xl border border-slate-800 bg-slate-950/60 p-2"
        {...tap.handlers}
      >
        {/* A phone gets the sequence as a readable list, with the full drawing a swipe away. Both keep the lesson's left-to-right order in every language. */}
        <div className="sm:hidden">
          <div dir="ltr" lang={lessonLang}>
            <StepTrail scenario={diagram} stepIndex={viewStep} picker={question.picker} captionLang={custom ? undefined : "en"} />
          </div>
          <FullDiagram scenario={diagram} stepIndex={viewStep} picker={question.picker} lessonLang={lessonLang} />
        </div>
        <div dir="ltr" lang={lessonLang} className="hidden sm:block">
          <SequenceDiagram scenario={diagram} stepIndex={viewStep} className="h-auto w-full" picker={question.picker} />
        </div>
        {question.askAt && question.focus && (
          <AskHere
            key={targetKey(question.focus)}
            snapshot={snapshot}
            target={question.focus}
            anchor={question.askAt}
            onClose={question.closeAsk}
          />
        )}
      </section>
      <StudentQuestions
        snapshot={snapshot}
        target={question.target}
        onlyTarget={question.focus !== null}
        onShowAll={question.clear}
        askingInPlace={question.askAt !== null}
        onAskHere={question.closeAsk}
      />
      {/* Objects, topology and the lab belong to the Kubernetes lesson only. */}
      {!custom && <StudentLessonPanels scenario={scenario} stepIndex={viewStep} />}
      {!custom && <FidelityNotes version={snapshot.kubeVersion} />}
      {!custom && <LabLink mode={snapshot.mode} variant={snapshot.variant} version={snapshot.kubeVersion} />}
    </main>
  );
}
