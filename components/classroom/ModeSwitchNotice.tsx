import { useTranslations } from "next-intl";
import { getScenario } from "@/lib/lesson/scenarios";
import { orderExplanation, stepNumber } from "@/lib/lesson/stepNumbers";
import type { PublicSnapshot } from "@/lib/session/views";
import { scenarioName } from "@/components/theme";
import { k8s } from "@/components/i18n/Kube";

/**
 * After a mode switch, every view says where the class landed (the same
 * moment, or the start) and, in one sentence, what the new mode's order does
 * to the card's and why: the reordering is what the switch teaches.
 */
export function ModeSwitchNotice({
  snapshot,
}: {
  snapshot: Pick<PublicSnapshot, "modeSwitch" | "mode" | "variant" | "stepIndex" | "kubeVersion">;
}) {
  const t = useTranslations("classroom");
  const sw = snapshot.modeSwitch;
  if (!sw) return null;
  const fromScenario = getScenario(sw.fromMode, sw.fromVariant, snapshot.kubeVersion);
  const toScenario = getScenario(snapshot.mode, snapshot.variant, snapshot.kubeVersion);
  const fromTitle = fromScenario.steps.find((s) => s.label === sw.fromLabel)?.title ?? t("cardStep", { card: sw.fromLabel });
  const from = scenarioName(fromScenario);
  const to = scenarioName(toScenario);
  // The moment keeps its card number; its place in the new order is what the class sees now.
  const { ordinal, card } = stepNumber(toScenario.steps, snapshot.stepIndex);
  return (
    <div
      role="status"
      data-testid="mode-switch-notice"
      className="rounded-lg border border-sky-400/40 bg-sky-950/60 px-3 py-2 text-sky-100"
    >
      <p data-testid="mode-switch-moment">
        {!sw.matched
          ? t.rich("switchedRestart", { from, to, title: fromTitle, k8s })
          : card !== null
            ? t.rich("switchedSameCard", { from, to, step: ordinal, title: fromTitle, card: t("cardStep", { card }), k8s })
            : t.rich("switchedSame", { from, to, step: ordinal, title: fromTitle, k8s })}
      </p>
      {/* Why the order moved is the lesson's own explanation: English until the lesson is translated. */}
      <p lang="en" data-testid="mode-order-explanation" className="mt-1">
        {orderExplanation(toScenario)}
      </p>
    </div>
  );
}
