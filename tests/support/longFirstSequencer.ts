import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that take longest start first, on every run. Vitest orders by the last run's durations when it has a
 * cache, and otherwise by file size: on a fresh clone (CI) the small fault files, each a fleet of server processes
 * killed and restarted for 20-30 s, started last and became the stage's tail (92 s against 69 s). The slowest files,
 * longest first; everything else keeps vitest's order.
 */
const LONGEST = [
  "tests/chaos/chaos.test.ts",
  "tests/integration/faultsKilledOwner.test.ts",
  "tests/integration/faultsFrozenOwner.test.ts",
  "tests/integration/faultsRedisRestart.test.ts",
  "tests/integration/accountsOps.test.ts",
  "tests/integration/accounts.test.ts",
  "tests/integration/cluster.test.ts",
  "tests/integration/outsiderNetConnections.test.ts",
  "tests/integration/persistence.test.ts",
];

const rank = (file: TestSpecification) => {
  const i = LONGEST.findIndex((name) => file.moduleId.endsWith(name));
  return i === -1 ? LONGEST.length : i;
};

export default class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Projects keep vitest's order, and within one, files of equal rank too (Array.prototype.sort is stable).
    const byProject = new Map<string, TestSpecification[]>();
    for (const file of await super.sort(files)) {
      const group = byProject.get(file.project.name) ?? [];
      group.push(file);
      byProject.set(file.project.name, group);
    }
    return [...byProject.values()].flatMap((group) => group.sort((a, b) => rank(a) - rank(b)));
  }
}
