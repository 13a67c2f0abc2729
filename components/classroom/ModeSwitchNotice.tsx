import { getScenario } from "@/lib/lesson/scenarios";
import type { PublicSnapshot } from "@/lib/session/views";
import { scenarioName } from "@/components/theme";

/** After a mode switch, every view says where the class landed: the same moment, or the start. */
export function ModeSwitchNotice({ snapshot }: { snapshot: Pick<PublicSnapshot, "modeSwitch" | "mode" | "variant"> }) {
  const sw = snapshot.modeSwitch;
  if (!sw) return null;
  const fromScenario = getScenario(sw.fromMode, sw.fromVariant);
  const fromTitle = fromScenario.steps.find((s) => s.label === sw.fromLabel)?.title ?? `step ${sw.fromLabel}`;
  const from = scenarioName(fromScenario);
  const to = scenarioName(getScenario(snapshot.mode, snapshot.variant));
  return (
    <p role="status" data-testid="mode-switch-notice" className="rounded-lg border border-sky-400/40 bg-sky-950/60 px-3 py-2 text-sky-100">
      {sw.matched
        ? `Switched from ${from} to ${to}, at the same moment: ${sw.fromLabel} ${fromTitle}.`
        : `Switched from ${from} to ${to}. It has no ${sw.fromLabel} ${fromTitle} step, so it starts from the beginning.`}
    </p>
  );
}
