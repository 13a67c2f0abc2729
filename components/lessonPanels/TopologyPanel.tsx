import { worldAt, type NodeVerdict, type Scenario } from "@/lib/lesson";
import { stringAt } from "@/lib/guards";

/**
 * Nodes grouped by zone: where the Pod runs (or may run), where the disk
 * lives, and each node's verdict once the scheduler has looked. A zone
 * mismatch is visible at a glance.
 */
export function TopologyPanel({ scenario, stepIndex }: { scenario: Scenario; stepIndex: number }) {
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
        Topology
      </h3>
      {mismatch && (
        <p role="status" className="rounded-lg border border-rose-400 bg-rose-950/70 px-3 py-2 text-rose-100" data-testid="zone-mismatch">
          Zone conflict: the disk is in {world.disk!.zone}, but the Pod may only run in {podZone}. A disk cannot be attached across zones.
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
                {zone}
                {podZone === zone && <span className="ml-2 rounded bg-sky-400/20 px-1.5 text-sky-200">Pod&apos;s nodeSelector</span>}
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
                          <span className="font-semibold">{n.name}</span>
                          {podHere && (
                            <span className="rounded bg-emerald-400/20 px-1.5 text-sm text-emerald-200" data-testid="topology-pod">
                              Pod app
                            </span>
                          )}
                          {localDiskHere && (
                            <span className="rounded bg-amber-400/20 px-1.5 text-sm text-amber-200">local disk {world.disk!.id}</span>
                          )}
                        </p>
                        {verdict && (
                          <p className={`mt-1 text-sm ${verdict.fits ? "text-emerald-300" : "text-rose-300"}`} data-testid="node-verdict">
                            {verdict.fits ? "fits" : `${verdict.failedFilter}: ${verdict.reason}`}
                          </p>
                        )}
                      </li>
                    );
                  })}
              </ul>
              {diskHere && world.disk!.kind === "cloud" && (
                <p className="mt-2 rounded bg-amber-400/15 px-2 py-1 font-mono text-sm text-amber-100" data-testid="topology-disk">
                  disk {world.disk!.id} ({zone})
                </p>
              )}
            </div>
          );
        })}
      </div>
      {!world.disk && <p className="text-sm text-slate-400">No disk exists yet.</p>}
    </section>
  );
}
