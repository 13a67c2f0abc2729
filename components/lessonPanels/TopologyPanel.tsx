import { useTranslations } from "next-intl";
import { Kube, k8s } from "@/components/i18n/Kube";
import { worldAt, type NodeVerdict, type Scenario } from "@/lib/lesson";
import { stringAt } from "@/lib/guards";

/**
 * Nodes grouped by zone: where the Pod runs (or may run), where the disk
 * lives, and each node's verdict once the scheduler has looked. A zone
 * mismatch is visible at a glance.
 */
export function TopologyPanel({ scenario, stepIndex }: { scenario: Scenario; stepIndex: number }) {
  const t = useTranslations("panels");
  const world = worldAt(scenario, stepIndex);
  const zones = [...new Set(world.nodes.map((n) => n.zone))];
  const podZone = stringAt(world.pod, "spec", "nodeSelector", "topology.kubernetes.io/zone") || null;
  const verdicts: NodeVerdict[] | undefined = scenario.steps
    .slice(0, stepIndex + 1)
    .filter((s) => s.nodeVerdicts)
    .at(-1)?.nodeVerdicts;
  const mismatch = !!(world.disk && podZone && world.disk.zone !== podZone);

  return (
    <section aria-labelledby="topology-heading" data-testid="topology" data-mismatch={mismatch} className="space-y-3">
      <h3 id="topology-heading" className="sr-only">
        {t("topology")}
      </h3>
      {mismatch && (
        <p role="status" className="rounded-lg border border-rose-400 bg-rose-950/70 px-3 py-2 text-rose-100" data-testid="zone-mismatch">
          {t.rich("zoneConflict", { disk: world.disk!.zone, pod: podZone, k8s })}
        </p>
      )}
      <div className="grid gap-3 sm:grid-cols-2">
        {zones.map((zone) => {
          const diskHere = world.disk && world.disk.zone === zone;
          return (
            <div
              key={zone}
              data-zone={zone}
              className={`rounded-xl border-2 p-3 ${podZone === zone ? "border-sky-400/70" : "border-slate-700"} ${mismatch && diskHere ? "border-rose-400" : ""}`}
            >
              <p className="font-mono text-sm font-semibold text-slate-300">
                <Kube>{zone}</Kube>
                {podZone === zone && (
                  <span className="ms-2 rounded bg-sky-400/20 px-1.5 text-sky-200">{t.rich("nodeSelector", { k8s })}</span>
                )}
              </p>
              <ul className="mt-2 space-y-2">
                {world.nodes
                  .filter((n) => n.zone === zone)
                  .map((n) => {
                    const verdict = verdicts?.find((v) => v.node === n.name);
                    const podHere = world.podNode === n.name;
                    const localDiskHere = world.disk?.kind === "local" && world.disk.node === n.name;
                    return (
                      <li key={n.name} data-node={n.name} className="rounded-lg bg-slate-800/80 px-3 py-2">
                        <p className="flex flex-wrap items-center gap-2 font-mono">
                          <span className="font-semibold" dir="ltr" translate="no">
                            {n.name}
                          </span>
                          {podHere && (
                            // The Pod named app, as Kubernetes names it.
                            <span
                              className="rounded bg-emerald-400/20 px-1.5 text-sm text-emerald-200"
                              data-testid="topology-pod"
                              dir="ltr"
                              translate="no"
                            >
                              Pod app
                            </span>
                          )}
                          {localDiskHere && (
                            <span className="rounded bg-amber-400/20 px-1.5 text-sm text-amber-200">
                              {t.rich("localDisk", { id: world.disk!.id, k8s })}
                            </span>
                          )}
                        </p>
                        {verdict && (
                          <p className={`mt-1 text-sm ${verdict.fits ? "text-emerald-300" : "text-rose-300"}`} data-testid="node-verdict">
                            {verdict.fits ? t("fits") : <Kube>{`${verdict.failedFilter}: ${verdict.reason}`}</Kube>}
                          </p>
                        )}
                      </li>
                    );
                  })}
              </ul>
              {diskHere && world.disk!.kind === "cloud" && (
                <p className="mt-2 rounded bg-amber-400/15 px-2 py-1 font-mono text-sm text-amber-100" data-testid="topology-disk">
                  {t.rich("disk", { id: world.disk!.id, zone, k8s })}
                </p>
              )}
            </div>
          );
        })}
      </div>
      {!world.disk && <p className="text-sm text-slate-400">{t("noDisk")}</p>}
    </section>
  );
}
