"use client";

import { useEffect, useState } from "react";
import { useTranslations } from "next-intl";
import { k8s } from "@/components/i18n/Kube";
import { useLessonProse } from "@/components/i18n/useScenario";
import { BINDING_MODES } from "@/lib/lesson/types";
import { VARIANTS_BY_MODE, getScenario } from "@/lib/lesson/scenarios";
import type { HostSnapshot } from "@/lib/session/views";
import { useSend } from "@/components/live/LiveSession";
import { scenarioName } from "@/components/theme";
import { SCENARIO_IDS, scenarioParts, type ScenarioId } from "@/lib/lesson/kubeCluster";

/**
 * Switches every view's StorageClass binding mode (and the teaching variant)
 * together. A switch moves every screen in the room, so it is deliberate:
 * the arrows only choose (a radio group), and Enter or "Switch every screen"
 * applies; Escape or Cancel puts the choice back.
 */
export function ModeSwitch({ snapshot, disabled }: { snapshot: HostSnapshot; disabled?: boolean }) {
  const t = useTranslations("console");
  const common = useTranslations("common");
  const send = useSend();
  const prose = useLessonProse();
  const options = BINDING_MODES.flatMap((mode) =>
    VARIANTS_BY_MODE[mode].map((variant) => ({ id: `${mode}/${variant}`, scenario: getScenario(mode, variant, snapshot.kubeVersion) })),
  );
  const current = `${snapshot.mode}/${snapshot.variant}`;
  const [chosen, setChosen] = useState(current);
  // When the room's mode changes (from here or a replayed command), the choice follows it.
  useEffect(() => setChosen(current), [current]);
  const pending = chosen !== current;
  const apply = () => {
    const id = SCENARIO_IDS.find((known): known is ScenarioId => known === chosen);
    if (!id || !pending) return;
    const [mode, variant] = scenarioParts(id);
    void send("mode:set", { mode, variant });
  };
  const cancel = () => setChosen(current);
  const chosenScenario =
    options.find((o) => o.id === chosen)?.scenario ?? getScenario(snapshot.mode, snapshot.variant, snapshot.kubeVersion);
  // The summary in the reader's language where the lesson catalog has it (marked English where not); the name is a name.
  const summary = prose.localize(chosenScenario.summary);
  return (
    <section className="rounded-xl border border-slate-700 bg-slate-900/70 p-4" aria-labelledby="mode-heading">
      <h2 id="mode-heading" className="text-lg font-semibold">
        {t("modeHeading")}
      </h2>
      <p className="mt-1 text-sm text-slate-300">{t("modeLead")}</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          apply();
        }}
        onKeyDown={(e) => {
          if (e.key === "Escape" && pending) {
            e.preventDefault();
            cancel();
            // Focus goes back to the mode every screen is in, so the next arrow starts from there.
            e.currentTarget.querySelector<HTMLInputElement>(`input[value="${current}"]`)?.focus();
          } else if (e.key === "Enter" && e.target instanceof HTMLInputElement && e.target.type === "radio") {
            e.preventDefault();
            apply();
          }
        }}
      >
        <fieldset disabled={disabled} className="mt-3" data-testid="mode-switch" data-value={current}>
          <legend className="sr-only">{t.rich("modeLegend", { k8s })}</legend>
          <div role="radiogroup" aria-label={t.markup("modeGroup", { k8s: (chunks) => chunks })} className="grid gap-1">
            {options.map(({ id, scenario }) => (
              <label
                key={id}
                className={`flex cursor-pointer items-center gap-2 rounded-lg border px-3 py-2 has-[:focus-visible]:outline has-[:focus-visible]:outline-3 has-[:focus-visible]:outline-yellow-400 ${
                  id === chosen ? "border-sky-400 bg-sky-400/10" : "border-slate-700"
                }`}
              >
                <input
                  type="radio"
                  name="binding-mode"
                  value={id}
                  checked={id === chosen}
                  onChange={() => setChosen(id)}
                  data-testid="mode-option"
                  data-value={id}
                  className="h-4 w-4 accent-sky-400"
                />
                <span data-testid="mode-name">{scenarioName(scenario)}</span>
                {id === current && <span className="ms-auto text-sm text-slate-300">{t("modeCurrent")}</span>}
              </label>
            ))}
          </div>
        </fieldset>
        {pending && (
          <div className="mt-3 flex flex-wrap items-center gap-2" role="group" aria-label={t("modePending")}>
            <button
              type="submit"
              data-testid="mode-apply"
              className="rounded-lg bg-sky-400 px-4 py-2 font-semibold text-slate-950 hover:bg-sky-300"
            >
              {t("modeApply", { mode: scenarioName(chosenScenario) })}
            </button>
            <button
              type="button"
              data-testid="mode-cancel"
              onClick={cancel}
              className="rounded-lg border border-slate-500 px-3 py-2 font-semibold hover:bg-slate-800"
            >
              {common("cancel")}
            </button>
          </div>
        )}
      </form>
      <p className="mt-2 text-sm text-slate-300" lang={summary.lang}>
        {summary.text}
      </p>
    </section>
  );
}
