import { useLocale, useTranslations } from "next-intl";
import { compareTimeline, getScenario, scenarioVersion, type BindingMode, type Scenario } from "@/lib/lesson";
import { scenarioName } from "@/components/theme";
import { useLessonProse } from "@/components/i18n/useScenario";

const PARTNER: Record<BindingMode, BindingMode> = {
  WaitForFirstConsumer: "Immediate",
  Immediate: "WaitForFirstConsumer",
  Local: "WaitForFirstConsumer",
};

/**
 * Two modes on one time axis: row i is the i-th thing that happens in each.
 * The first row where they part is marked and explained.
 */
export function CompareView({ scenario, stepIndex }: { scenario: Scenario; stepIndex: number }) {
  const t = useTranslations("panels");
  const locale = useLocale();
  const partnerMode = PARTNER[scenario.mode];
  const partner = getScenario(partnerMode, "standard", scenarioVersion(scenario));
  const [left, right] = scenario.mode === "Immediate" ? [partner, scenario] : [scenario, partner];
  const comparison = compareTimeline(left, right);
  const currentSide = left === scenario ? "a" : "b";
  // Why the tracks part is the built-in lesson's prose: the lesson catalog's in the reader's language, else English, marked.
  const prose = useLessonProse();
  const explanation = prose.localize(comparison.divergenceExplanation);
  return (
    <section aria-labelledby="compare-heading" data-testid="compare-view" className="space-y-2">
      {/* The scenarios' names and steps are the built-in lesson's own words (English until translated). */}
      <h3 id="compare-heading" className="font-semibold">
        {t.rich("versus", {
          left: scenarioName(left),
          right: scenarioName(right),
          a: (chunks) => <span lang="en">{chunks}</span>,
          b: (chunks) => <span lang="en">{chunks}</span>,
        })}
      </h3>
      <table className="w-full text-start text-sm">
        <thead className="text-slate-400">
          <tr>
            <th scope="col" className="w-10">
              #
            </th>
            <th scope="col" lang="en">
              {scenarioName(left)}
            </th>
            <th scope="col" lang="en">
              {scenarioName(right)}
            </th>
          </tr>
        </thead>
        <tbody>
          {comparison.rows.map((row) => {
            const diverges = row.moment === comparison.firstDivergence;
            const here = row.moment === stepIndex;
            return (
              <tr
                key={row.moment}
                data-moment={row.moment}
                data-diverges={diverges || undefined}
                className={`${row.same ? "text-slate-300" : "text-slate-100"} ${diverges ? "outline-2 outline-rose-400" : ""}`}
              >
                <td className="py-1 tabular-nums text-slate-400">{row.moment + 1}</td>
                {(["a", "b"] as const).map((side) => {
                  const step = row[side];
                  const mine = here && side === currentSide;
                  return (
                    <td
                      key={side}
                      className={`py-1 pe-2 ${mine ? "font-bold text-yellow-200" : ""} ${!row.same ? "bg-slate-800/60" : ""}`}
                      lang="en"
                    >
                      {/* The row's number is the step's in both tracks; the card's number only where it differs. */}
                      {step ? step.title : "—"}
                      {step && step.label !== row.moment + 1 && <span lang={locale}> {t("cardStep", { card: step.label })}</span>}
                      {step?.noop && <span lang={locale}> {t("nothing")}</span>}
                      {step?.failed && " ✕"}
                      {mine && (
                        <span className="sr-only" lang={locale}>
                          {" "}
                          {t("classHere")}
                        </span>
                      )}
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
      {comparison.firstDivergence !== null && (
        <p className="rounded-lg border border-rose-400/60 bg-rose-950/40 px-3 py-2" data-testid="compare-divergence">
          <strong>{t("partAt", { moment: comparison.firstDivergence + 1 })}</strong>{" "}
          <span lang={explanation.lang} data-testid="compare-explanation">
            {explanation.text}
          </span>
        </p>
      )}
    </section>
  );
}
