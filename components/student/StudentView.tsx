"use client";

import { useEffect, useState } from "react";
import { getScenario } from "@/lib/lesson/scenarios";
import { pollIsCurrent, type PublicSnapshot } from "@/lib/session/views";
import { LiveSessionProvider, studentTokenKey, useLive, usePublicSnapshot } from "@/components/live/LiveSession";
import { ErrorScreen, SessionGate } from "@/components/session/SessionGate";
import { useJoinInfo } from "@/components/session/useJoinInfo";
import { SequenceDiagram } from "@/components/diagram/SequenceDiagram";
import { StepTrail } from "@/components/diagram/StepTrail";
import { ModeBadge, StepHeader } from "@/components/session/StepHeader";
import { ModeSwitchNotice } from "@/components/session/ModeSwitchNotice";
import { FidelityNotes } from "@/components/session/FidelityNotes";
import { LabLink } from "@/components/session/LabLink";
import { StudentLessonPanels } from "@/components/lesson/LazyPanels";
import { PollCard } from "@/components/poll/PollCard";
import { PollAnnouncer } from "@/components/poll/PollAnnouncer";
import { NICKNAME_MAX } from "@/lib/protocol/wire";

/**
 * The student's phone: asks for an optional nickname unless the link carries
 * one (`?name=`) or this browser already joined (a reload keeps its identity).
 */
export function StudentView({ code, initialName }: { code: string; initialName: string | null }) {
  const [nickname, setNickname] = useState<string | null>(initialName);
  const [checked, setChecked] = useState(initialName !== null);

  useEffect(() => {
    if (initialName !== null) return;
    let known = false;
    try {
      known = localStorage.getItem(studentTokenKey(code)) !== null;
    } catch {
      known = false;
    }
    if (known) setNickname("");
    setChecked(true);
  }, [code, initialName]);

  const exists = useJoinInfo(code, checked && nickname === null).status;
  if (!checked) return null;
  if (nickname === null) {
    if (exists === "checking") return null;
    if (exists === "missing") return <ErrorScreen error={{ code: "NO_SUCH_SESSION", message: "There is no session with that code." }} code={code} />;
    return <NicknameForm code={code} onJoin={setNickname} />;
  }
  return (
    <LiveSessionProvider role="student" code={code} nickname={nickname || undefined}>
      <SessionGate>
        <StudentScreen code={code} />
      </SessionGate>
    </LiveSessionProvider>
  );
}

function NicknameForm({ code, onJoin }: { code: string; onJoin: (name: string) => void }) {
  const [name, setName] = useState("");
  return (
    <main className="mx-auto flex min-h-screen max-w-md flex-col justify-center px-5">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onJoin(name.trim());
        }}
        className="space-y-4"
      >
        <h1 className="text-3xl font-bold">
          Join <span className="font-mono tracking-widest">{code}</span>
        </h1>
        <label htmlFor="nickname" className="block text-lg font-medium">
          Nickname <span className="font-normal text-slate-400">(optional)</span>
        </label>
        <input
          id="nickname"
          value={name}
          maxLength={NICKNAME_MAX}
          onChange={(e) => setName(e.target.value)}
          autoComplete="nickname"
          className="w-full rounded-lg border border-slate-600 bg-slate-950 px-3 py-3 text-lg"
          data-testid="nickname"
        />
        <button type="submit" data-testid="join-submit" className="w-full rounded-lg bg-emerald-400 px-4 py-3 text-lg font-semibold text-slate-950">
          Join the class
        </button>
      </form>
    </main>
  );
}

function ConnectionStatus() {
  const connection = useLive((s) => s.connection);
  const connected = connection === "connected";
  return (
    <p
      data-testid="connection-status"
      data-state={connected ? "connected" : "reconnecting"}
      role="status"
      className={`rounded-full px-3 py-1 text-sm font-semibold ${connected ? "bg-emerald-900/70 text-emerald-200" : "bg-amber-800 text-amber-50"}`}
    >
      {connected ? "● connected" : "◌ reconnecting…"}
    </p>
  );
}

function StudentScreen({ code }: { code: string }) {
  const snapshot = usePublicSnapshot();
  const nickname = useLive((s) => s.welcome?.nickname);
  const scenario = getScenario(snapshot.mode, snapshot.variant);
  return (
    <div className="mx-auto max-w-5xl space-y-4 px-3 py-3 sm:px-5">
      <header className="flex items-center justify-between gap-3">
        <p className="min-w-0 text-sm text-slate-300 [overflow-wrap:anywhere]">
          <span className="font-mono font-semibold tracking-widest text-white">{code}</span>
          {nickname ? ` · ${nickname}` : ""}
        </p>
        <ConnectionStatus />
      </header>
      {snapshot.status === "ended" && (
        <p role="status" className="rounded-lg bg-slate-800 p-3">
          The teacher has ended this session. Thanks for taking part!
        </p>
      )}
      <ModeBadge mode={snapshot.mode} scenario={scenario} />
      <ModeSwitchNotice snapshot={snapshot} />
      <PollAnnouncer poll={snapshot.poll} />
      {/* One card, in one place, from opening to reveal: it is not rebuilt when the answer comes. */}
      {snapshot.poll && snapshot.status !== "ended" && pollIsCurrent(snapshot.poll, snapshot) && <PollCard key={`${snapshot.poll.id}:${snapshot.poll.round}`} poll={snapshot.poll} />}
      <StepHeader scenario={scenario} snapshot={snapshot} />
      <section aria-label="Sequence diagram" className="rounded-2xl border border-slate-800 bg-slate-950/60 p-2">
        {/* A phone gets the sequence as a readable list, with the full drawing a swipe away. */}
        <div className="sm:hidden">
          <StepTrail scenario={scenario} stepIndex={snapshot.stepIndex} />
          <details className="mt-2">
            <summary className="cursor-pointer px-2 py-1 text-sky-200">Show the full diagram</summary>
            <div className="mt-2 overflow-x-auto" tabIndex={0} role="region" aria-label="Full sequence diagram (scrolls sideways)">
              <SequenceDiagram scenario={scenario} stepIndex={snapshot.stepIndex} className="h-auto w-[720px] max-w-none" />
            </div>
          </details>
        </div>
        <div className="hidden sm:block">
          <SequenceDiagram scenario={scenario} stepIndex={snapshot.stepIndex} className="h-auto w-full" />
        </div>
      </section>
      <StudentLessonPanels scenario={scenario} stepIndex={snapshot.stepIndex} />
      <FidelityNotes />
      <LabLink mode={snapshot.mode} variant={snapshot.variant} />
    </div>
  );
}
