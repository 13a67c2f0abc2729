import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { replay } from "../../lib/session";
import type { Room } from "../../server/rooms/room";
import { connectClient, startServer, type TestServer } from "./harness";
import { classActions } from "./fuzz/classActions";
import { convergenceFor } from "./fuzz/convergence";
import { nicknameFor } from "./fuzz/hostile";
import { hostileActions, overTransportCap } from "./fuzz/hostileActions";
import { invariantsFor } from "./fuzz/invariants";
import { CONVERGE_TIMEOUT_MS, FuzzRun, type Action } from "./fuzz/run";
import { teacherActions } from "./fuzz/teacherActions";
import { Rng, current, short } from "./fuzz/wire";

/**
 * Seeded fuzz of one live classroom over real sockets (tldraw's syncFuzz.test.ts
 * is the model). A PRNG drives a teacher (three tabs: the server allows 10
 * commands a second per socket), a projector and ~30 students, plus hostile
 * input, through a few hundred actions per seed. After
 * every action the server's authoritative state must keep its invariants; at
 * checkpoints every connected client must have converged to what the server
 * would send it, every message a client ever got must match the durable log at
 * its rev, and replaying the log must rebuild the live state.
 *
 * A run is a function of its seed: every choice comes from the seeded PRNG,
 * commands that the room would take in either order are sent in an order the
 * seed draws, each once the one before is answered, and the fuzz waits for the
 * server's rate buckets (mirrored locally) rather than race them, so every
 * command gets the same answer on a fast machine and a loaded one. Only what
 * the server draws itself (ids, tokens, option shuffles) differs between runs.
 * A failure names its seed and how to replay it:
 *   FUZZ_SEED=<seed> npx vitest run tests/integration/fuzz.test.ts
 * (FUZZ_SEEDS=1,2,3 runs other seeds, to hunt for new failures; FUZZ_TRACE=1
 * prints each action.) Keep seeds that once failed in FAILED_SEEDS.
 */

/**
 * Random but fixed. Before 13628af, 1337, 20240611 and 987654321 failed within
 * a few actions: ids such as "__proto__" or "toString" found Object.prototype
 * members (poll:reopen corrupted the state), and a command sent with only an
 * ack got no reply.
 */
const SEEDS = [0x5eed, 1_337, 20_240_611, 987_654_321, 42];
/** Seeds that once failed, kept as fixed cases. */
const FAILED_SEEDS: number[] = [
  // A student's rename at (re)join (second tab, or reload with ?name=) reaches neither the student's
  // other tabs nor the teacher's console: Room.renameIfChanged commits without publishing.
  2,
];

const INITIAL_STUDENTS = 30;
const HOST_TABS = 3;
/**
 * A fixed number of actions per seed, whatever the machine's speed: a kept
 * failing seed replays the same actions everywhere, up to the one that failed.
 */
const ACTIONS_PER_SEED = 250;
const CHECKPOINT_EVERY = 150;

let srv: TestServer;

beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv?.close();
});

const chosenSeeds = (process.env.FUZZ_SEED ?? process.env.FUZZ_SEEDS)?.split(",").map(Number);
/** Each seed's answers, in order, as its first run got them. */
const answersOf = new Map<number, string[]>();

/** Runs a seed; a failure says how to replay it. */
async function replayable(seed: number): Promise<string[]> {
  try {
    return await runSeed(seed);
  } catch (err) {
    if (err instanceof Error) err.message += `\n  replay: FUZZ_SEED=${seed} npx vitest run tests/integration/fuzz.test.ts`;
    throw err;
  }
}

describe("classroom fuzz (seeded)", () => {
  const seeds = chosenSeeds ?? [...SEEDS, ...FAILED_SEEDS];
  for (const seed of seeds) {
    it(`seed ${seed}: every client converges, invariants hold, the log replays`, async () => {
      answersOf.set(seed, await replayable(seed));
    }, 45_000);
  }
  it(`seed ${seeds[0]} again: the same commands get the same answers, in the same order`, async () => {
    const first = answersOf.get(seeds[0]);
    expect(first, "the seed's first run finished").toBeDefined();
    const again = await replayable(seeds[0]);
    const differs = again.findIndex((answer, i) => answer !== first![i]);
    expect(differs, `first difference: ${first![differs]} then ${again[differs]}`).toBe(-1);
    expect(again).toHaveLength(first!.length);
  }, 45_000);
});

async function runSeed(seed: number): Promise<string[]> {
  const rng = new Rng(seed);
  const { id: sessionId, code, hostKey } = await srv.createSession(`Fuzz ${seed}`);
  const room: Room = srv.server.rooms.get(sessionId)!;
  expect(room, `seed ${seed}: the room is live`).toBeTruthy();

  const fuzz = new FuzzRun(seed, rng, srv, room, sessionId, code, hostKey);
  const { tabs, identities, trail, stats, where, openTabs, durableEvents, addTab, tryConnect, hostTab } = fuzz;
  const { checkServerInvariants } = invariantsFor(fuzz);
  const { checkpoint } = convergenceFor(fuzz);
  // One table, in this order: a seed's rolls pick the same actions as they always did.
  const actions: Record<string, Action> = { ...classActions(fuzz), ...teacherActions(fuzz), ...hostileActions(fuzz) };

  // -------------------------------------------------------------------------
  // Run

  try {
    for (let k = 0; k < HOST_TABS; k++)
      addTab("host", await connectClient(srv.url, { role: "host", code, hostKey }), null, `teacher tab ${k + 1}`);
    addTab("projector", await connectClient(srv.url, { role: "projector", code }), null, "projector");
    // One after another: the server numbers students in the order they join (and names the nameless by it).
    for (let k = 0; k < INITIAL_STUDENTS; k++) {
      const result = await tryConnect({ role: "student", code, nickname: nicknameFor(rng, k + 1) });
      if ("error" in result) throw new Error(`seed ${seed}: student ${k} could not join: ${result.error}`);
      const identity = fuzz.identityOf(result.client.welcome!, result.client.welcome!.nickname!);
      identities.push(identity);
      addTab("student", result.client, identity, `student ${identities.length} tab 1`);
    }
    await checkServerInvariants();

    const entries = Object.entries(actions);
    const totalWeight = entries.reduce((sum, [, [w]]) => sum + w, 0);
    const oversizeAt = rng.range(10, ACTIONS_PER_SEED - 10);
    for (fuzz.actionIndex = 0; fuzz.actionIndex < ACTIONS_PER_SEED; fuzz.actionIndex++) {
      if (fuzz.actionIndex === oversizeAt) {
        await overTransportCap(fuzz);
        continue;
      }
      for (let attempt = 0; attempt < 20; attempt++) {
        let roll = rng.int(Math.round(totalWeight * 10)) / 10;
        const [name, [, run]] = entries.find(([, [w]]) => (roll -= w) < 0) ?? entries[0];
        fuzz.label = name;
        trail.push(name);
        if (process.env.FUZZ_TRACE) console.error(`[fuzz ${seed}] #${fuzz.actionIndex} ${name}`);
        let applied: boolean;
        try {
          applied = await run();
        } catch (err) {
          // An assertion already names the action; a timeout or a thrown error does not.
          if (err instanceof Error && !err.message.startsWith(`seed ${seed}`)) err.message = `${where()}: ${err.message}`;
          throw err;
        }
        if (applied) break;
        trail.pop();
      }
      stats.actions++;
      await checkServerInvariants();
      if (fuzz.actionIndex % CHECKPOINT_EVERY === CHECKPOINT_EVERY - 1) {
        fuzz.label = "checkpoint";
        await checkpoint();
      }
    }
    fuzz.label = "final checkpoint";
    await checkpoint();

    // The end: every connected client sees it, and the log still replays to the live state.
    fuzz.label = "session:end";
    const ender = await hostTab();
    await fuzz.spend(ender, "session:end", {});
    expect(await ender.client.emit("session:end", {}), `${where()}`).toEqual({ ok: true, data: null });
    await vi.waitFor(
      () => {
        for (const tab of openTabs()) expect(current(tab).status, `${where()}: ${tab.name}`).toBe("ended");
      },
      { timeout: CONVERGE_TIMEOUT_MS, interval: 25 },
    );
    expect(srv.server.rooms.get(sessionId), `${where()}: an ended room stays in memory`).toBeNull();
    const events = await durableEvents();
    expect(events.at(-1)?.type, `${where()}`).toBe("session:ended");
    expect(replay(events), `${where()}: replaying the ended session's log`).toEqual(room.snapshotState);
    expect((await fetch(`${srv.url}/api/health`)).status, `${where()}: /api/health after the end`).toBe(200);
    // Nothing was refused for its rate: the fuzz waits for the server's buckets, or its answers would depend on the
    // machine's speed. (A fuzz that was mostly refused, by a locked room say, tested little.)
    const limited = fuzz.answers.flatMap((answer, i) => (answer.includes("RATE_LIMITED") ? [`#${i} ${answer}`] : []));
    expect(stats.rateLimited, `seed ${seed}: ${short(stats)}; ${limited.join("; ")}`).toBe(0);
    expect(stats.votes > 0 && stats.checkpoints > 0, `seed ${seed}: ${short(stats)}`).toBe(true);
    return fuzz.answers;
  } finally {
    for (const tab of tabs) tab.client.close();
  }
}
