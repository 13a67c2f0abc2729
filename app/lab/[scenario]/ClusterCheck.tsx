"use client";

import { useId, useState } from "react";
import { checkCluster, type CheckResult, type PastedEvent } from "@/lib/lesson/clusterCheck";
import { SCENARIO_IDS, scenarioParts, type ScenarioId } from "@/lib/lesson/kubeCluster";
import { getScenario } from "@/lib/lesson/scenarios";

/**
 * "Check my cluster": the student pastes kubectl's JSON and sees each event on
 * its diagram step. The paste is parsed here, in the browser, and never sent
 * anywhere: a lab cluster's events can name internal hosts.
 */

const split = (id: ScenarioId) => scenarioParts(id);

function EventLine({ event }: { event: PastedEvent }) {
  return (
    <li className={event.type === "Warning" ? "text-rose-200" : "text-slate-100"}>
      <span className="font-semibold">{event.reason}</span>
      {event.count > 1 && <span className="text-slate-400"> (×{event.count})</span>}{" "}
      <span className="font-mono text-sm text-slate-400">
        {event.objectKind}/{event.objectName}
      </span>
      <span className="block font-mono text-sm text-slate-300">{event.message}</span>
    </li>
  );
}

export function ClusterCheck({ scenarioId }: { scenarioId: ScenarioId }) {
  const [text, setText] = useState("");
  const [against, setAgainst] = useState<ScenarioId>(scenarioId);
  const [result, setResult] = useState<CheckResult | null>(null);
  const ids = { paste: useId(), scenario: useId(), help: useId() };

  const run = () => setResult(checkCluster(text, ...split(against)));

  return (
    <div className="mt-2 space-y-4" data-testid="cluster-check">
      <p id={ids.help} className="text-slate-300">
        Paste the output of <code className="font-mono">kubectl get events -o json</code> (or{" "}
        <code className="font-mono">kubectl events -o json</code>) from your lab cluster. It is read in this browser only; nothing is
        uploaded.
      </p>
      <div>
        <label htmlFor={ids.scenario} className="block font-semibold">
          Check against
        </label>
        <select
          id={ids.scenario}
          value={against}
          onChange={(e) => {
            const chosen = SCENARIO_IDS.find((known) => known === e.target.value);
            if (chosen) setAgainst(chosen);
          }}
          className="mt-1 w-full rounded-lg border border-slate-600 bg-slate-950 px-3 py-2"
        >
          {SCENARIO_IDS.map((id) => (
            <option key={id} value={id}>
              {getScenario(...split(id)).title}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor={ids.paste} className="block font-semibold">
          kubectl output (JSON)
        </label>
        <textarea
          id={ids.paste}
          aria-describedby={ids.help}
          value={text}
          onChange={(e) => setText(e.target.value)}
          rows={8}
          spellCheck={false}
          autoCapitalize="off"
          autoCorrect="off"
          data-testid="cluster-check-input"
          className="mt-1 w-full rounded-lg border border-slate-600 bg-slate-950 p-3 font-mono text-[13px]"
          placeholder='{"apiVersion": "v1", "items": [ ... ], "kind": "List"}'
        />
      </div>
      <button
        type="button"
        onClick={run}
        data-testid="cluster-check-run"
        className="rounded-lg bg-sky-400 px-4 py-2 font-semibold text-slate-950"
      >
        Check my cluster
      </button>

      {/* Announced to screen readers when it changes: the one-line verdict, or what is wrong with the paste. */}
      <p role="status" aria-live="polite" data-testid="cluster-check-status" className="font-semibold">
        {result === null ? "" : result.ok ? result.summary : result.problem}
      </p>

      {result?.ok && (
        <div className="space-y-5" data-testid="cluster-check-result">
          {result.hints.length > 0 && (
            <ul className="list-disc space-y-1 pl-5 text-amber-200">
              {result.hints.map((h) => (
                <li key={h}>{h}</li>
              ))}
            </ul>
          )}
          <section aria-labelledby={`${ids.paste}-steps`}>
            <h3 id={`${ids.paste}-steps`} className="text-lg font-semibold">
              Your events on the diagram
            </h3>
            <ol className="mt-2 space-y-3">
              {result.steps.map((step) => (
                <li key={step.position} data-testid="cluster-check-step" data-label={step.label} data-count={step.events.length}>
                  <p className="font-semibold">
                    Step {step.position}: {step.label} {step.title}
                  </p>
                  {step.events.length > 0 ? (
                    <ul className="mt-1 space-y-1 border-l-2 border-emerald-400/60 pl-3">
                      {step.events.map((e) => (
                        <EventLine key={`${e.order}`} event={e} />
                      ))}
                    </ul>
                  ) : (
                    <p className="text-sm text-slate-400">No event at this step.</p>
                  )}
                </li>
              ))}
            </ol>
          </section>

          {result.missing.length > 0 && (
            <section aria-labelledby={`${ids.paste}-missing`} data-testid="cluster-check-missing">
              <h3 id={`${ids.paste}-missing`} className="text-lg font-semibold text-rose-200">
                Missing
              </h3>
              <ul className="mt-1 list-disc space-y-1 pl-5">
                {result.missing.map((m) => (
                  <li key={`${m.position}-${m.reason}`}>
                    {m.reason} on the {m.objectKind}, expected at step {m.position} ({m.label} {m.title})
                  </li>
                ))}
              </ul>
            </section>
          )}

          {result.unexpected.length > 0 && (
            <section aria-labelledby={`${ids.paste}-unexpected`} data-testid="cluster-check-unexpected">
              <h3 id={`${ids.paste}-unexpected`} className="text-lg font-semibold text-rose-200">
                Not in this scenario
              </h3>
              <ul className="mt-1 space-y-2">
                {result.unexpected.map((e) => (
                  <EventLine key={`${e.order}`} event={e} />
                ))}
              </ul>
            </section>
          )}

          {result.outOfOrder.length > 0 && (
            <section aria-labelledby={`${ids.paste}-order`} data-testid="cluster-check-order">
              <h3 id={`${ids.paste}-order`} className="text-lg font-semibold text-rose-200">
                Out of order
              </h3>
              <ul className="mt-1 list-disc space-y-1 pl-5">
                {result.outOfOrder.map((o) => (
                  <li key={`${o.event.order}`}>
                    {o.event.reason} (step {o.step.position}, {o.step.title}) was recorded after {o.after.reason} (step{" "}
                    {o.afterStep.position}, {o.afterStep.title})
                  </li>
                ))}
              </ul>
            </section>
          )}

          {result.otherObjects > 0 && (
            <p className="text-sm text-slate-400">
              {result.otherObjects} event{result.otherObjects === 1 ? " is" : "s are"} about other objects (nodes, the CSI driver&apos;s own
              Pods) and left aside.
            </p>
          )}
        </div>
      )}
    </div>
  );
}
