"use client";

import { useTranslations } from "next-intl";
import { useEffect, useId, useState } from "react";
import { useLessonProse } from "@/components/i18n/useScenario";
import { MAX_PASTE_BYTES, checkCluster, pasteTooLarge, type CheckResult } from "@/lib/lesson/clusterCheck";
import { SCENARIO_IDS, scenarioParts, type ScenarioId } from "@/lib/lesson/kubeCluster";
import { getScenario } from "@/lib/lesson/scenarios";
import { stringAt } from "@/lib/guards";
import { DEFAULT_KUBE_VERSION, type KubeVersion } from "@/lib/lesson/versions";
import { English, EventLine, FOCUS, VERSION_PARAM, VersionNote, kube, versionInUrl } from "./clusterCheckParts";

export { VERSION_PARAM };

/**
 * "Check my cluster": the student pastes what kubectl printed and sees each
 * event on its diagram step, and what the messages say. The paste is parsed
 * here, in the browser, and never sent anywhere: a lab cluster's events can
 * name internal hosts.
 */

/** Where the paste waits while the sheet reloads in another release (this tab only, removed as soon as it is read back). */
const CARRIED_PASTE_KEY = "cluster-check:carried-paste";

const split = (id: ScenarioId) => scenarioParts(id);

export function ClusterCheck({ scenarioId, version }: { scenarioId: ScenarioId; version?: KubeVersion }) {
  const t = useTranslations("clusterCheck");
  const prose = useLessonProse();
  const words = (english: string) => {
    const said = prose.localize(english);
    return (
      <span lang={said.lang} data-lesson-words>
        {said.text}
      </span>
    );
  };
  const [text, setText] = useState("");
  const [against, setAgainst] = useState<ScenarioId>(scenarioId);
  const [sheetVersion, setSheetVersion] = useState<KubeVersion>(version ?? DEFAULT_KUBE_VERSION);
  const [result, setResult] = useState<CheckResult | null>(null);
  const [refused, setRefused] = useState<string | null>(null);
  const ids = { paste: useId(), scenario: useId(), help: useId() };

  // The sheet's release comes from the page when it passes one, else from the URL (read after hydration: the page is static).
  // A paste carried over from the same sheet in another release is checked again at once, against this release.
  useEffect(() => {
    const sheet = version ?? versionInUrl();
    setSheetVersion(sheet);
    const carried = sessionStorage.getItem(CARRIED_PASTE_KEY);
    if (carried === null) return;
    sessionStorage.removeItem(CARRIED_PASTE_KEY);
    let saved: unknown = null;
    try {
      saved = JSON.parse(carried);
    } catch {
      // Not ours to read: leave the box empty.
    }
    const carriedText = stringAt(saved, "text");
    if (carriedText === "") return;
    const chosen = SCENARIO_IDS.find((known) => known === stringAt(saved, "against")) ?? scenarioId;
    setText(carriedText);
    setAgainst(chosen);
    setResult(checkCluster(carriedText, ...split(chosen), sheet));
  }, [scenarioId, version]);

  const run = () => {
    setRefused(null);
    setResult(checkCluster(text, ...split(against), sheetVersion));
  };

  const onPaste = (value: string) => {
    // Enforced before anything is parsed: a multi-megabyte paste is not kept, so typing stays fast.
    const tooLarge = pasteTooLarge(value);
    if (tooLarge) {
      setRefused(tooLarge);
      setResult(null);
      return;
    }
    setRefused(null);
    setText(value);
  };

  const carryPaste = () => sessionStorage.setItem(CARRIED_PASTE_KEY, JSON.stringify({ against, text }));

  const status =
    refused !== null ? (
      <>
        {t("notPasted")} <English>{refused}</English>
      </>
    ) : result === null ? (
      ""
    ) : (
      <English>{result.ok ? result.summary : result.problem}</English>
    );

  return (
    <div className="mt-2 space-y-4" data-testid="cluster-check" data-version={sheetVersion}>
      <p id={ids.help} className="text-slate-300">
        {t.rich("help", {
          kib: MAX_PASTE_BYTES / 1024,
          cmd: (chunks) => (
            <code className="font-mono" translate="no" dir="ltr">
              {chunks}
            </code>
          ),
        })}
      </p>
      <div>
        <label htmlFor={ids.scenario} className="block font-semibold">
          {t("against")}
        </label>
        <select
          id={ids.scenario}
          value={against}
          onChange={(e) => {
            const chosen = SCENARIO_IDS.find((known) => known === e.target.value);
            if (chosen) setAgainst(chosen);
          }}
          className={`mt-1 w-full rounded-lg border border-slate-600 bg-slate-950 px-3 py-2 ${FOCUS}`}
        >
          {SCENARIO_IDS.map((id) => {
            const title = prose.localize(getScenario(...split(id)).title);
            return (
              <option key={id} value={id} lang={title.lang}>
                {title.text}
              </option>
            );
          })}
        </select>
      </div>
      <div>
        <label htmlFor={ids.paste} className="block font-semibold">
          {t.rich("pasteLabel", { k8s: (chunks) => <span translate="no">{chunks}</span> })}
        </label>
        <textarea
          id={ids.paste}
          aria-describedby={ids.help}
          value={text}
          onChange={(e) => onPaste(e.target.value)}
          rows={8}
          spellCheck={false}
          autoCapitalize="off"
          autoCorrect="off"
          data-testid="cluster-check-input"
          // The paste is kubectl's output, and the placeholder shows its columns: Kubernetes, not the interface.
          translate="no"
          dir="ltr"
          className={`mt-1 w-full rounded-lg border border-slate-600 bg-slate-950 p-3 font-mono text-[13px] ${FOCUS}`}
          placeholder={"LAST SEEN   TYPE     REASON   OBJECT   MESSAGE\n..."}
        />
      </div>
      <button
        type="button"
        onClick={run}
        data-testid="cluster-check-run"
        className={`rounded-lg bg-sky-400 px-4 py-2 font-semibold text-slate-950 ${FOCUS}`}
      >
        {t("run")}
      </button>

      {/* Announced to screen readers when it changes: the one-line verdict, or what is wrong with the paste. */}
      <p role="status" aria-live="polite" data-testid="cluster-check-status" className="font-semibold">
        {status}
      </p>

      {result?.ok && !refused && (
        <div className="space-y-5" data-testid="cluster-check-result" data-shape={result.shape}>
          {result.version && (
            <section
              aria-labelledby={`${ids.paste}-version`}
              data-testid="cluster-check-version"
              data-fits={result.version.fits.join(" ")}
              data-matches={result.version.matchesSheet}
              className={`rounded-lg border p-3 ${result.version.matchesSheet ? "border-slate-600" : "border-amber-300 text-amber-100"}`}
            >
              <h3 id={`${ids.paste}-version`} className="text-lg font-semibold">
                {t("release")}
              </h3>
              <VersionNote reading={result.version} onSwitch={carryPaste} />
            </section>
          )}

          {result.differentFailures.length > 0 && (
            <section
              aria-labelledby={`${ids.paste}-different`}
              data-testid="cluster-check-different"
              className="rounded-lg border border-rose-300 p-3"
            >
              <h3 id={`${ids.paste}-different`} className="text-lg font-semibold text-rose-200">
                {t("different")}
              </h3>
              {result.differentFailures.map((f) => (
                <div key={f.event.order} className="mt-2">
                  <p>
                    {f.lessonReason ? t.rich("differentBecause", { reason: () => kube(f.lessonReason ?? "") }) : t("differentScheduled")}
                  </p>
                  <ul className="mt-1 list-disc space-y-1 ps-5">
                    {f.reasons.map((r) => (
                      <li key={r.text}>
                        {t.rich("schedulerSaid", {
                          text: () => kube(`${r.nodes === null ? "" : `${r.nodes} `}${r.text}`),
                          meaning: () => <English>{r.meaning}</English>,
                        })}
                      </li>
                    ))}
                  </ul>
                  <ul className="mt-2">
                    <EventLine event={f.event} />
                  </ul>
                </div>
              ))}
            </section>
          )}

          {result.provisioner && (
            <section
              aria-labelledby={`${ids.paste}-provisioner`}
              data-testid="cluster-check-provisioner"
              data-provisioner={result.provisioner.name}
              className="rounded-lg border border-amber-300 p-3 text-amber-100"
            >
              <h3 id={`${ids.paste}-provisioner`} className="text-lg font-semibold">
                {t("notLabClass")}
              </h3>
              <p lang="en">{result.provisioner.advice}</p>
            </section>
          )}

          {result.hints.length > 0 && (
            <ul className="list-disc space-y-1 ps-5 text-amber-200" lang="en">
              {result.hints.map((h) => (
                <li key={h}>{h}</li>
              ))}
            </ul>
          )}

          <section aria-labelledby={`${ids.paste}-steps`}>
            <h3 id={`${ids.paste}-steps`} className="text-lg font-semibold">
              {t("onDiagram")}
            </h3>
            <ol className="mt-2 space-y-3">
              {result.steps.map((step) => (
                <li key={step.position} data-testid="cluster-check-step" data-label={step.label} data-count={step.events.length}>
                  <p className="font-semibold">
                    {t.rich("step", { position: step.position, label: step.label, title: () => words(step.title) })}
                  </p>
                  {step.events.length > 0 ? (
                    <ul className="mt-1 space-y-1 border-s-2 border-emerald-400/60 ps-3">
                      {step.events.map((e) => (
                        <EventLine key={e.order} event={e} />
                      ))}
                    </ul>
                  ) : (
                    <p className="text-sm text-slate-400">{t("noEvent")}</p>
                  )}
                </li>
              ))}
            </ol>
          </section>

          {result.explained.length > 0 && (
            <section aria-labelledby={`${ids.paste}-explained`} data-testid="cluster-check-explained">
              <h3 id={`${ids.paste}-explained`} className="text-lg font-semibold">
                {t("normal")}
              </h3>
              <ul className="mt-1 space-y-2">
                {result.explained.map((x) => (
                  <li key={x.event.order}>
                    <ul>
                      <EventLine event={x.event} />
                    </ul>
                    <p className="mt-1 text-slate-200" lang="en">
                      {x.why}
                    </p>
                  </li>
                ))}
              </ul>
            </section>
          )}

          {result.missing.length > 0 && (
            <section aria-labelledby={`${ids.paste}-missing`} data-testid="cluster-check-missing">
              <h3 id={`${ids.paste}-missing`} className="text-lg font-semibold text-rose-200">
                {t("missing")}
              </h3>
              <ul className="mt-1 list-disc space-y-1 ps-5">
                {result.missing.map((m) => (
                  <li key={`${m.position}-${m.reason}`}>
                    {t.rich("missingLine", {
                      position: m.position,
                      label: m.label,
                      reason: () => kube(m.reason),
                      kind: () => kube(m.objectKind),
                      title: () => words(m.title),
                    })}
                    {m.why && (
                      <span className="block text-slate-300" lang="en">
                        {m.why}
                      </span>
                    )}
                  </li>
                ))}
              </ul>
            </section>
          )}

          {result.unexpected.length > 0 && (
            <section aria-labelledby={`${ids.paste}-unexpected`} data-testid="cluster-check-unexpected">
              <h3 id={`${ids.paste}-unexpected`} className="text-lg font-semibold text-rose-200">
                {t("unexpected")}
              </h3>
              <ul className="mt-1 space-y-2">
                {result.unexpected.map((e) => (
                  <EventLine key={e.order} event={e} />
                ))}
              </ul>
            </section>
          )}

          {result.outOfOrder.length > 0 && (
            <section aria-labelledby={`${ids.paste}-order`} data-testid="cluster-check-order">
              <h3 id={`${ids.paste}-order`} className="text-lg font-semibold text-rose-200">
                {t("outOfOrder")}
              </h3>
              <ul className="mt-1 list-disc space-y-1 ps-5">
                {result.outOfOrder.map((o) => (
                  <li key={o.event.order}>
                    {t.rich("orderLine", {
                      step: o.step.position,
                      afterStep: o.afterStep.position,
                      reason: () => kube(o.event.reason),
                      title: () => words(o.step.title),
                      afterReason: () => kube(o.after.reason),
                      afterTitle: () => words(o.afterStep.title),
                    })}
                  </li>
                ))}
              </ul>
            </section>
          )}

          {result.otherObjects > 0 && (
            <p className="text-sm text-slate-400">
              {t.rich("otherObjects", { count: result.otherObjects, k8s: (chunks) => <span translate="no">{chunks}</span> })}
            </p>
          )}
        </div>
      )}
    </div>
  );
}
