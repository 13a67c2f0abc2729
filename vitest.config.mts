import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import LongFirstSequencer from "./tests/support/longFirstSequencer";

/**
 * Three projects, so `npm test` can fail fast on the quick ones: `unit` (pure code, milliseconds each; its files
 * share one module graph per worker instead of importing it again each, 28 s -> 9 s, and every file that fakes
 * the clock puts it back in afterEach);
 * `integration` (real servers, sockets, SQLite files, Redis and child processes; most of each test is waiting on
 * them, so scripts/test.sh runs it with more workers than cores); `timing`, the integration tests whose verdict
 * depends on how fast the machine answers (rate limits refilling while a burst is sent, password hashing within a
 * test's time, the seeded fuzz and chaos runs' answer budgets), run after the others with one worker per core.
 * An integration test file owns its server, port, data folder and Redis, so files share a worker without isolation.
 */
const UNIT = [
  "lib/**/*.test.ts",
  "server/**/*.test.ts",
  "components/**/*.test.ts",
  "tests/i18n/**/*.test.ts",
  "tests/docs/**/*.test.ts",
  "tests/structure/**/*.test.ts",
  "tests/chaos/checker.test.ts",
];
const TIMING = [
  "tests/chaos/chaos.test.ts",
  "tests/integration/fuzz.test.ts",
  "tests/integration/accounts.test.ts",
  "tests/integration/accountsOps.test.ts",
  "tests/integration/trust.test.ts",
  "tests/integration/outsiderNetNoisy.test.ts",
  "tests/integration/outsiderReview.test.ts",
  "tests/integration/assignmentsOutsider.test.ts",
  // A resync flood answered within a byte budget that refills while the flood is sent: 599 of 600 answers under load 10.
  "tests/integration/outsiderFloods.test.ts",
];

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    sequence: { sequencer: LongFirstSequencer },
    projects: [
      { extends: true, test: { name: "unit", include: UNIT, isolate: false } },
      {
        extends: true,
        test: { name: "integration", include: ["tests/**/*.test.ts"], exclude: ["**/node_modules/**", ...UNIT, ...TIMING], isolate: false },
      },
      { extends: true, test: { name: "timing", include: TIMING, isolate: false } },
    ],
  },
});
