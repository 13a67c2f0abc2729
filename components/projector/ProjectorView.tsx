"use client";

import { useEffect, useState } from "react";
import { readHostKey } from "@/components/live/hostKeyStore";
import { useJoinInfo } from "@/components/session/useJoinInfo";
import { getScenario } from "@/lib/lesson/scenarios";
import type { PublicSnapshot } from "@/lib/session/views";
import { LiveSessionProvider, useLive, usePublicSnapshot } from "@/components/live/LiveSession";
import { SessionGate } from "@/components/session/SessionGate";
import { SequenceDiagram } from "@/components/diagram/SequenceDiagram";
import { ModeBadge, StepHeader } from "@/components/session/StepHeader";
import { ModeSwitchNotice } from "@/components/session/ModeSwitchNotice";
import { TallyBars } from "@/components/poll/TallyBars";
import { useLiveResults } from "@/components/poll/useLiveResults";
import { Countdown } from "@/components/poll/Countdown";
import { PanelBody } from "@/components/lesson/LazyPanels";
import { PANEL_LABELS } from "@/components/lesson/panelLabels";
import { pollIsCurrent } from "@/lib/session/views";

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
    <LiveSessionProvider role="projector" code={code} hostKey={hostKey}>
      <SessionGate>
        <Projector code={code} />
      </SessionGate>
    </LiveSessionProvider>
  );
}

/** The address students can reach (the server picks PUBLIC_URL or this machine's LAN address). */
function useJoinUrl(code: string): string | null {
  const joinInfo = useJoinInfo(code);
  if (joinInfo.status === "checking") return null;
  return joinInfo.status === "ok" ? joinInfo.info.joinUrl : `${window.location.origin}/join/${code}`;
}

/** The projector: the diagram large, no controls; poll results only when the teacher shows them. */
function Projector({ code }: { code: string }) {
  const snapshot = usePublicSnapshot();
  const scenario = getScenario(snapshot.mode, snapshot.variant);
  const poll = snapshot.poll && pollIsCurrent(snapshot.poll, snapshot) ? snapshot.poll : null;
  const panel = snapshot.projectorPanel;
  const results = useLiveResults(poll, snapshot.rev);
  const joinUrl = useJoinUrl(code);
  return (
    // Exactly one screen: the diagram takes whatever height the header leaves, so nothing falls below the fold.
    <div className="grid h-screen grid-rows-[auto_auto_minmax(0,1fr)] gap-4 overflow-hidden p-6">
      <header className="flex items-start justify-between gap-6">
        <div className="min-w-0 flex-1">
          <StepHeader scenario={scenario} snapshot={snapshot} large />
        </div>
        {snapshot.status === "ended" ? (
          <p className="shrink-0 rounded-2xl border border-slate-600 bg-slate-900 px-5 py-3 text-2xl" role="status" data-testid="session-ended">
            This session has ended.
          </p>
        ) : (
        <div className="shrink-0 rounded-2xl border border-slate-600 bg-slate-900 px-5 py-3 text-right">
          <p className="text-lg text-slate-300" data-testid="join-link">
            Join at {joinUrl ? joinUrl.replace(/^https?:\/\//, "") : "…"}
          </p>
          <p data-testid="room-code" className="font-mono text-6xl font-bold tracking-[0.2em]">
            {code}
          </p>
          <p className="text-lg text-slate-300">
            {snapshot.participantCount} {snapshot.participantCount === 1 ? "student" : "students"}
          </p>
        </div>
        )}
      </header>
      <div className="flex flex-wrap items-center gap-4 text-lg">
        <ModeBadge mode={snapshot.mode} scenario={scenario} />
        <ModeSwitchNotice snapshot={snapshot} />
      </div>
      <div className="grid min-h-0 gap-6" style={{ gridTemplateColumns: poll || panel !== "none" ? "minmax(0,1fr) 640px" : "minmax(0,1fr)" }}>
        <div className="min-h-0 min-w-0">
          <SequenceDiagram scenario={scenario} stepIndex={snapshot.stepIndex} large className="h-full w-full" />
        </div>
        {poll && (
          <section className="min-h-0 overflow-y-auto rounded-2xl border-2 border-violet-400/70 bg-slate-900 p-6" aria-labelledby="projector-poll" data-testid="projector-poll">
            <p className="text-xl font-semibold uppercase tracking-widest text-violet-300">
              {poll.status === "open" ? "Vote on your phone" : poll.revealed ? "The answer" : "Poll closed"}{" "}
              {poll.status === "open" && <Countdown closesAt={poll.closesAt} />}
            </p>
            <h2 id="projector-poll" className="mt-2 text-3xl font-bold">
              {poll.question}
            </h2>
            {results ? (
              <div className="mt-5" aria-live="polite">
                <TallyBars options={poll.options} results={results} correctOptionId={poll.correctOptionId} large />
                {poll.revealed && poll.correctOptionId && (
                  <p className="mt-4 text-2xl text-emerald-200">{poll.options.find((o) => o.id === poll.correctOptionId)?.note}</p>
                )}
              </div>
            ) : (
              <ol className="mt-5 space-y-3 text-2xl">
                {poll.options.map((o) => (
                  <li key={o.id} className="rounded-xl bg-slate-800 px-4 py-3">
                    {o.text}
                  </li>
                ))}
              </ol>
            )}
          </section>
        )}
        {!poll && panel !== "none" && (
          <section
            className="min-h-0 min-w-0 overflow-y-auto rounded-2xl border border-slate-700 bg-slate-900 p-5 text-lg [&_pre]:max-h-none [&_pre]:text-[17px] [&_pre]:leading-6 [&_table]:text-[15px]"
            tabIndex={0} aria-label={PANEL_LABELS[panel]} data-testid="projector-panel" data-panel={panel}>
            <PanelBody panel={panel} scenario={scenario} stepIndex={snapshot.stepIndex} />
          </section>
        )}
      </div>
    </div>
  );
}
