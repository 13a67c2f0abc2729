"use client";

import { BINDING_MODES } from "@/lib/lesson/types";
import { VARIANTS_BY_MODE, getScenario } from "@/lib/lesson/scenarios";
import type { HostSnapshot } from "@/lib/session/views";
import { useSend } from "@/components/live/LiveSession";
import { scenarioName } from "@/components/theme";
import { SCENARIO_IDS, scenarioParts } from "@/lib/lesson/kubeCluster";

/** Switches every view's StorageClass binding mode (and the teaching variant) together. */
export function ModeSwitch({ snapshot, disabled }: { snapshot: HostSnapshot; disabled?: boolean }) {
  const send = useSend();
  const options = BINDING_MODES.flatMap((mode) =>
    VARIANTS_BY_MODE[mode].map((variant) => ({ mode, variant, scenario: getScenario(mode, variant) })),
  );
  const value = `${snapshot.mode}/${snapshot.variant}`;
  return (
    <section className="rounded-xl border border-slate-700 bg-slate-900/70 p-4" aria-labelledby="mode-heading">
      <h2 id="mode-heading" className="text-lg font-semibold">
        Binding mode
      </h2>
      <p className="mt-1 text-sm text-slate-400">
        Every screen switches together and keeps its place when the other mode has the same moment.
      </p>
      <label htmlFor="mode-switch" className="sr-only">
        StorageClass binding mode
      </label>
      <select
        id="mode-switch"
        data-testid="mode-switch"
        disabled={disabled}
        value={value}
        onChange={(e) => {
          const id = SCENARIO_IDS.find((known) => known === e.target.value);
          if (!id) return;
          const [mode, variant] = scenarioParts(id);
          void send("mode:set", { mode, variant });
        }}
        className="mt-3 w-full rounded-lg border border-slate-600 bg-slate-950 px-3 py-3 text-lg"
      >
        {options.map(({ mode, variant, scenario }) => (
          <option key={`${mode}/${variant}`} value={`${mode}/${variant}`}>
            {scenarioName(scenario)}
          </option>
        ))}
      </select>
      <p className="mt-2 text-sm text-slate-300">{getScenario(snapshot.mode, snapshot.variant).summary}</p>
    </section>
  );
}
