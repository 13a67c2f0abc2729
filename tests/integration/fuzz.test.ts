import { io as rawConnect } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { FRAME_LIMITS, MAX_COMMAND_PAYLOAD_BYTES, MAX_SOCKET_MESSAGE_BYTES, MAX_VOTES_PER_ROUND } from "../../lib/constants";
import { nestingExceeds } from "../../server/edge/frameGuard";
import { BINDING_MODES, VARIANTS, getScenario, isVariantOf } from "../../lib/lesson";
import {
  ERROR_CODES,
  NICKNAME_MAX,
  COMMANDS,
  cleanText,
  type Ack,
  type AnySnapshot,
  type ClientToServerEvents,
  type ErrorCode,
  type MyVote,
  type TallyUpdate,
  newerVote,
} from "../../lib/protocol";
import {
  PROJECTOR_PANELS,
  activePoll,
  countVotes,
  initialState,
  reduce,
  replay,
  toHostSnapshot,
  toPublicSnapshot,
  type SessionEvent,
  type SessionState,
  type RosterRow,
} from "../../lib/session";
import type { Room } from "../../server/rooms/room";
import { connectClient, startServer, waitUntil, type TestClient, type TestServer } from "./harness";
import { mulberry32 } from "../support/random";

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
 * The action sequence is a function of the seed; server-side randomness (ids,
 * option shuffles) and timing (rate limits) are not, so a failing seed
 * reproduces its actions but not always byte-for-byte the same server state.
 * Keep seeds that once failed in FAILED_SEEDS.
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
const CONVERGE_TIMEOUT_MS = 3_000;
/**
 * The server slows an address after 20 failed handshakes (refill 0.5/s), and
 * every socket here comes from 127.0.0.1; more than a few per seed would lock
 * the legitimate students out of later seeds.
 */
const COUNTED_HANDSHAKE_FAILURES_PER_SEED = 3;

// ---------------------------------------------------------------------------
// Randomness

class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[this.int(items.length)];
  }
  hex(n: number): string {
    return Array.from({ length: n }, () => this.int(16).toString(16)).join("");
  }
}

// ---------------------------------------------------------------------------
// The wire, as the fuzzer sees it

type EventName = keyof ClientToServerEvents;
type Role = "host" | "projector" | "student";
type Outcome = "ok" | ErrorCode;
type EventType = SessionEvent["type"];

interface Parser {
  safeParse(value: unknown): { success: boolean };
}

/** The schema and roles of every command: the protocol's own table. */
const COMMAND_TABLE: Record<EventName, { schema: Parser; roles: readonly Role[] }> = COMMANDS;
const TEACHER_COMMANDS = (Object.keys(COMMAND_TABLE) as EventName[]).filter(
  (e) => COMMAND_TABLE[e].roles.includes("host") && e !== "session:sync",
);
/** session:end is left out of random traffic: it would end the fuzz. It is exercised once, at the end. */
const FUZZABLE_COMMANDS = (Object.keys(COMMAND_TABLE) as EventName[]).filter((e) => e !== "session:end");

/** Keys that a plain object inherits: ids that must read as unknown, never as found. */
const PROTOTYPE_KEYS = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"];

/** A local mirror of one of the server's token buckets; it is conservative because it starts later. */
class Budget {
  private tokens: number;
  private last = Date.now();
  constructor(
    private readonly capacity: number,
    private readonly perSecond: number,
  ) {
    this.tokens = capacity;
  }
  private refill(): void {
    const now = Date.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
  }
  available(): boolean {
    this.refill();
    return this.tokens >= 1;
  }
  take(): void {
    this.refill();
    this.tokens = Math.max(0, this.tokens - 1);
  }
}

interface Identity {
  participantId: string;
  token: string;
  nickname: string;
  removed: boolean;
  /** Mirror of the server's per-participant vote bucket (10 burst, 4/s). */
  votes: Budget;
}

interface Tab {
  name: string;
  role: Role;
  client: TestClient;
  identity: Identity | null;
  /** We hold it open; the server must not have dropped it. */
  open: boolean;
  /** Mirror of the server's per-socket command bucket (30 burst, 10/s). */
  commands: Budget;
  /** Projector: the participantCount it last heard (snapshot or session:presence). */
  heardCount: number | null;
  /** Student: the nickname the server last told this tab. */
  heardNickname: string | null;
  checkedSnapshots: number;
  checkedTallies: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const short = (value: unknown) => {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 160 ? `${text.slice(0, 160)}…(${text.length} chars)` : text;
};
/** What the server receives: the payload after a JSON round trip (undefined becomes null in an args array). */
const onTheWire = (payload: unknown): unknown => JSON.parse(JSON.stringify([payload]))[0];

/** The snapshot a client following the protocol keeps: the highest rev, the latest of equals. */
function current(tab: Tab): AnySnapshot {
  let best: AnySnapshot | null = null;
  for (const s of tab.client.snapshots) if (!best || s.rev >= best.rev) best = s;
  if (!best) throw new Error(`${tab.name} has no snapshot`);
  return best;
}

function latestTally(tab: Tab): TallyUpdate | null {
  let best: TallyUpdate | null = null;
  for (const t of tab.client.tallies) if (!best || t.rev >= best.rev) best = t;
  return best;
}

/** The counts a client shows: a tally newer than its snapshot for the same poll round wins. */
function shownCounts(tab: Tab): Record<string, number> | null {
  const snap = current(tab);
  if (!snap.poll) return null;
  const tally = latestTally(tab);
  if (tally && tally.rev > snap.rev && tally.pollId === snap.poll.id && tally.round === snap.poll.round) return tally.counts;
  return snap.poll.results?.counts ?? null;
}

/** Presence (who is connected) is not part of the durable state; views compare without it. */
function withoutPresence(snapshot: AnySnapshot): Record<string, unknown> {
  if (snapshot.audience === "host") {
    const { participantCount: _count, projectorCount: _views, ...rest } = snapshot;
    return rest;
  }
  const { participantCount: _count, ...rest } = snapshot;
  return rest;
}

/** Before a publish barrier: rev and the vote-driven parts (which travel as tallies) may lag. */
function withoutVoteDrift(snapshot: AnySnapshot, state: SessionState, keepPresence: boolean): Record<string, unknown> {
  const base: Record<string, unknown> = keepPresence ? { ...snapshot } : withoutPresence(snapshot);
  delete base.rev;
  const poll = snapshot.poll as (Record<string, unknown> & { status: string }) | null;
  if (poll) {
    const copy: Record<string, unknown> = { ...poll };
    if (poll.status === "open" && (snapshot.audience === "host" || state.resultsVisible)) delete copy.results;
    // The class's vote count is coalesced like the tally (at most 4 a second), so it drifts like it while open.
    if (poll.status === "open") delete copy.voted;
    base.poll = copy;
  }
  return base;
}

// ---------------------------------------------------------------------------
// Hostile material

function nicknameFor(rng: Rng, n: number): string | undefined {
  return rng.pick<() => string | undefined>([
    () => undefined,
    () => `Kid ${n}`,
    () => `Kid ${n}`,
    () => `Kid ${n}`,
    () => "<script>alert(1)</script>",
    () => "__proto__",
    () => "constructor",
    () => "\u0000\u0007\u001b[31mred\u0000",
    () => "\u202eevil\u202c \u200bname\u200b",
    () => "   ",
    () => "\u0000\u0001\u200b",
    () => "ü".repeat(40),
    () => "x".repeat(128),
    () => "Ana\n\tLee",
  ])();
}

function textFor(rng: Rng, max: number): string {
  return rng.pick<() => string>([
    () => `Option ${rng.hex(4)}`,
    () => `Option ${rng.hex(4)}`,
    () => "<img src=x onerror=alert(1)>",
    () => "__proto__",
    () => "  spaced\u0000out  ",
    () => "\u200b\u0000", // cleans to empty
    () => "y".repeat(max * 4), // longest accepted, cut to max
    () => "z".repeat(max * 4 + 1), // too long
  ])();
}

function deepObject(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

function garbagePayload(rng: Rng): unknown {
  return rng.pick<() => unknown>([
    () => null,
    () => undefined,
    () => 0,
    () => -1,
    () => "",
    () => true,
    () => "x".repeat(rng.range(1, 12_000)),
    () => [],
    () => [1, "a", null],
    () => ({}),
    () => ({ stepIndex: "3" }),
    () => ({ stepIndex: 1.5 }),
    () => ({ stepIndex: -1 }),
    () => ({ stepIndex: Number.MAX_SAFE_INTEGER }),
    () => ({ stepIndex: null }),
    () => ({ delta: 0 }),
    () => ({ delta: "1" }),
    () => ({ delta: [1] }),
    () => ({ mode: "__proto__" }),
    () => ({ mode: "Immediate", variant: "constructor" }),
    () => ({ mode: {} }),
    () => ({ kind: "custom", question: "q", options: "ab" }),
    () => ({ kind: "custom", question: "\u200b\u0000", options: ["a", "b"] }),
    () => ({ kind: "custom", question: "q", options: Array(7).fill("o") }),
    () => ({ kind: "custom", question: "q", options: ["a", ""] }),
    () => ({ kind: "custom", question: "q", options: ["a", "b"], correctIndex: 6 }),
    () => ({ kind: "nope" }),
    () => ({ kind: "next-step", durationS: 7 }),
    () => ({ kind: "next-step", durationS: "15" }),
    () => ({ pollId: 5 }),
    () => ({ pollId: "" }),
    () => ({ pollId: "x".repeat(65) }),
    () => ({ pollId: "p", optionId: null }),
    () => ({ pollId: "x".repeat(12_000), optionId: "o1" }),
    () => ({ visible: "yes" }),
    () => ({ panel: "evil" }),
    () => ({ panel: "__proto__" }),
    () => ({ locked: 1 }),
    () => ({ participantId: {} }),
    () => ({ participantId: "x", nickname: 5 }),
    () => JSON.parse('{"__proto__":{"stepIndex":1,"polluted":true},"constructor":{"prototype":{"polluted":true}}}'),
    () => JSON.parse('{"__proto__":{"kind":"next-step"},"kind":"__proto__"}'),
    () => deepObject(200),
  ])();
}

// ---------------------------------------------------------------------------

let srv: TestServer;

beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv?.close();
});

describe("classroom fuzz (seeded)", () => {
  // FUZZ_SEEDS=1,2,3 runs other seeds, to hunt for new failures.
  const seeds = process.env.FUZZ_SEEDS ? process.env.FUZZ_SEEDS.split(",").map(Number) : [...SEEDS, ...FAILED_SEEDS];
  for (const seed of seeds) {
    it(`seed ${seed}: every client converges, invariants hold, the log replays`, async () => {
      await runSeed(seed);
    }, 45_000);
  }
});

async function runSeed(seed: number): Promise<void> {
  const rng = new Rng(seed);
  const { id: sessionId, code, hostKey } = await srv.createSession(`Fuzz ${seed}`);
  const room: Room = srv.server.rooms.get(sessionId)!;
  expect(room, `seed ${seed}: the room is live`).toBeTruthy();

  const tabs: Tab[] = [];
  const identities: Identity[] = [];
  const trail: string[] = [];
  let actionIndex = -1;
  let label = "setup";
  let lastSeq = 0;
  let countedFailures = 0;
  let hostTurn = 0;
  const stats = { actions: 0, rateLimited: 0, joins: 0, votes: 0, checkpoints: 0 };

  const where = () => `seed ${seed} action #${actionIndex} "${label}" (before: ${trail.slice(-6, -1).join(" | ")})`;
  const openTabs = (role?: Role) => tabs.filter((t) => t.open && (!role || t.role === role));
  const state = () => room.snapshotState;

  async function durableEvents(): Promise<SessionEvent[]> {
    await srv.store.flush();
    return await srv.store.loadEvents(sessionId);
  }

  // -------------------------------------------------------------------------
  // Tabs

  function addTab(role: Role, client: TestClient, identity: Identity | null, name: string): Tab {
    const tab: Tab = {
      name,
      role,
      client,
      identity,
      open: true,
      commands: new Budget(30, 10),
      heardCount: null,
      heardNickname: client.welcome?.nickname ?? null,
      checkedSnapshots: 0,
      checkedTallies: 0,
    };
    tab.heardCount = current(tab).participantCount;
    client.socket.on("session:snapshot", (s) => (tab.heardCount = s.participantCount));
    client.socket.on("session:presence", (p) => (tab.heardCount = p.participantCount));
    client.socket.on("participant:renamed", (r) => (tab.heardNickname = r.nickname));
    tabs.push(tab);
    return tab;
  }

  /** Connects, or returns the rejection code. */
  async function tryConnect(auth: Record<string, unknown>): Promise<{ client: TestClient } | { error: string }> {
    const client = await connectClient(srv.url, auth, { expectError: true });
    const error = (client as TestClient & { error?: { code: string } | string }).error;
    if (error !== undefined) {
      client.close();
      return { error: typeof error === "string" ? error : error.code };
    }
    await client.waitFor((c) => c.snapshots.length > 0 && c.welcome !== null);
    return { client };
  }

  function closeTab(tab: Tab): void {
    tab.open = false;
    tab.client.close();
  }

  // -------------------------------------------------------------------------
  // Checks

  function expectErrorShape(ack: Ack<unknown>): void {
    if (ack.ok) return;
    expect(Object.keys(ERROR_CODES), `${where()}: unknown error code in ${short(ack)}`).toContain(ack.error.code);
    expect(ack.error.message, `${where()}: an error message leaks internals`).not.toMatch(
      /\n\s+at |\.ts:\d+|node_modules|TypeError|ReferenceError/,
    );
  }

  /** Durable writes since `before`, minus a close fired by a poll's own countdown (unless a close is what we expect). */
  async function writesSince(before: SessionState, expected: EventType[] = []): Promise<EventType[]> {
    const events = (await durableEvents()).filter((e) => e.seq > before.seq);
    const timerMayClose = !expected.includes("poll:closed");
    return events
      .filter((e) => !(timerMayClose && e.type === "poll:closed" && before.polls[e.pollId]?.closesAt != null))
      .map((e) => e.type);
  }

  /**
   * Sends one acknowledged command and checks the reply and what it wrote.
   * `allowed` null accepts anything but INTERNAL; `writes` null skips the write check.
   */
  async function command(
    tab: Tab,
    event: EventName,
    payload: unknown,
    allowed: Outcome | Outcome[] | null,
    writes: EventType[] | null,
  ): Promise<Ack<unknown>> {
    const before = state();
    if (event === "poll:vote" && tab.identity) tab.identity.votes.take();
    else tab.commands.take();
    const ack = await tab.client.emit(event, payload as never);
    expectErrorShape(ack);
    const outcome: Outcome = ack.ok ? "ok" : ack.error.code;
    const expected = allowed === null ? null : [allowed].flat();
    // On a surprising answer, invariants first: a corrupted state is the more useful report.
    if (expected ? !expected.includes(outcome) && outcome !== "RATE_LIMITED" : outcome === "INTERNAL") await checkServerInvariants();
    const what = `${where()}: ${tab.name} ${event} ${short(payload)} answered ${short(ack)}`;
    if (outcome === "RATE_LIMITED" && !expected?.includes("RATE_LIMITED")) {
      stats.rateLimited++;
      expect(await writesSince(before), `${what}: a refused command wrote events`).toEqual([]);
      return ack;
    }
    if (expected) expect(expected, what).toContain(outcome);
    else expect(outcome, what).not.toBe("INTERNAL");
    if (!ack.ok) expect(await writesSince(before), `${what}: a refused command wrote events`).toEqual([]);
    else if (writes) expect(await writesSince(before, writes), `${what}: wrote`).toEqual(writes);
    return ack;
  }

  /** A teacher tab with rate budget left; round-robin, so the choice does not consume randomness. */
  async function hostTab(): Promise<Tab> {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const hosts = tabs.filter((t) => t.role === "host");
      for (let k = 0; k < hosts.length; k++) {
        const tab = hosts[(hostTurn + k) % hosts.length];
        if (tab.open && tab.commands.available()) {
          hostTurn = (hostTurn + k + 1) % hosts.length;
          return tab;
        }
      }
      if (Date.now() > deadline) throw new Error(`${where()}: no teacher tab has rate budget`);
      await sleep(20);
    }
  }

  /** An acknowledged emit that may legitimately get no reply (its socket is being kicked). */
  function emitMaybe(tab: Tab, event: EventName, payload: unknown, timeoutMs = 1_500): Promise<Ack<unknown> | "no reply"> {
    if (event === "poll:vote" && tab.identity) tab.identity.votes.take();
    else tab.commands.take();
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve("no reply"), timeoutMs);
      (tab.client.socket.emit as (e: string, p: unknown, cb: (r: Ack<unknown>) => void) => void)(event, payload, (r) => {
        clearTimeout(timer);
        // As the bundled client does: the vote's receipt is this tab's vote (other tabs get poll:myVote).
        if (event === "poll:vote" && r.ok && newerVote(tab.client.myVotes.at(-1) ?? null, r.data as MyVote))
          tab.client.myVotes.push(r.data as MyVote);
        resolve(r);
      });
    });
  }

  /**
   * The rules the authoritative state must keep after every action. Checked in
   * plain code and reported together: hundreds of expect() calls per action
   * would cost more than the actions.
   */
  async function checkServerInvariants(): Promise<void> {
    const s = state();
    const bad: string[] = [];
    const check = (ok: boolean, message: () => string) => void (ok || bad.push(message()));

    const events = await durableEvents();
    check(
      events.every((e, i) => e.seq === i + 1),
      () => `log seqs are not 1..n: ${short(events.map((e) => e.seq).slice(-10))}`,
    );
    check(s.seq === events.length, () => `live seq ${s.seq} but ${events.length} durable events`);
    check(s.seq >= lastSeq, () => `seq went backwards: ${lastSeq} -> ${s.seq}`);
    lastSeq = Math.max(lastSeq, s.seq);
    check(s.status === "live", () => "the session ended on its own");

    check(isVariantOf(s.mode, s.variant), () => `${s.mode}/${s.variant} is not a scenario`);
    const steps = getScenario(s.mode, s.variant).steps.length;
    check(Number.isInteger(s.stepIndex) && s.stepIndex >= 0 && s.stepIndex < steps, () => `stepIndex ${s.stepIndex} of ${steps}`);

    for (const [key, p] of Object.entries(s.participants)) {
      check(p.id === key, () => `participant stored under "${key}" has id ${short(p.id)}: ${short(p)}`);
      check(typeof p.nickname === "string" && p.nickname.length > 0, () => `participant ${key} nickname ${short(p.nickname)}`);
      check(
        typeof p.nickname !== "string" || cleanText(p.nickname, NICKNAME_MAX) === p.nickname,
        () => `participant ${key} nickname is not clean: ${short(p.nickname)}`,
      );
      check(typeof p.removed === "boolean", () => `participant ${key} removed is ${short(p.removed)}`);
    }

    const pollIds = Object.keys(s.polls);
    check(
      s.pollOrder.length === pollIds.length &&
        s.pollOrder.every((id) => Object.hasOwn(s.polls, id)) &&
        new Set(s.pollOrder).size === s.pollOrder.length,
      () => `pollOrder ${short(s.pollOrder)} vs polls ${short(pollIds)}`,
    );
    check(s.activePollId === null || Object.hasOwn(s.polls, s.activePollId), () => `activePollId ${short(s.activePollId)} is not a poll`);
    const open = Object.values(s.polls).filter((p) => p.status === "open");
    check(open.length <= 1, () => `${open.length} open polls: ${short(open.map((p) => p.id))}`);
    check(
      open.length !== 1 || s.activePollId === open[0].id,
      () => `the open poll ${short(open[0]?.id)} is not the active one (${short(s.activePollId)})`,
    );
    for (const [key, poll] of Object.entries(s.polls)) {
      const ctx = `poll "${key}"`;
      check(poll.id === key, () => `${ctx} has id ${short(poll.id)}: ${short(poll)}`);
      const optionIds = (poll.options ?? []).map((o) => o.id);
      check(optionIds.length >= 2 && optionIds.length <= 6, () => `${ctx} has ${optionIds.length} options`);
      check(new Set(optionIds).size === optionIds.length, () => `${ctx} repeats an option id: ${short(optionIds)}`);
      check(
        poll.correctOptionId === null || optionIds.includes(poll.correctOptionId),
        () => `${ctx} correct option ${short(poll.correctOptionId)}`,
      );
      check(Number.isInteger(poll.round) && poll.round >= 1, () => `${ctx} round ${short(poll.round)}`);
      for (const [voter, optionId] of Object.entries(poll.votes ?? {})) {
        check(Object.hasOwn(s.participants, voter), () => `${ctx}: a vote from unknown participant ${voter}`);
        check(optionIds.includes(optionId), () => `${ctx}: a vote for ${short(optionId)}, not one of ${short(optionIds)}`);
        if (poll.status === "open")
          check(!s.participants[voter]?.removed, () => `${ctx}: removed participant ${voter}'s vote still counts`);
      }
      let previousRound = 0;
      for (const round of poll.history ?? []) {
        check(
          round.round > previousRound && round.round <= poll.round,
          () => `${ctx}: history rounds ${short(poll.history.map((r) => r.round))}`,
        );
        previousRound = round.round;
        check(
          Object.keys(round.counts).sort().join() === [...optionIds].sort().join(),
          () => `${ctx}: history counts keys ${short(round.counts)}`,
        );
        check(Object.values(round.counts).reduce((a, b) => a + b, 0) === round.total, () => `${ctx}: history total ${short(round)}`);
      }
      if (poll.status !== "open")
        check(poll.history?.at(-1)?.round === poll.round, () => `${ctx}: closed round ${poll.round} is missing from history`);
    }

    const host = room.hostSnapshot();
    check(host.rev === s.seq, () => `host snapshot rev ${host.rev} vs seq ${s.seq}`);
    const roster = room.roster().rows;
    check(roster.length === Object.keys(s.participants).length, () => `roster ${short(roster)} vs participants`);
    for (const row of roster) {
      const p = s.participants[row.id];
      check(p?.nickname === row.nickname && p.removed === row.removed, () => `roster row ${short(row)} vs participant ${short(p)}`);
    }
    const active = activePoll(s);
    check((host.poll?.id ?? null) === (active?.id ?? null), () => `host poll ${short(host.poll?.id)} vs active ${short(active?.id)}`);
    if (active && host.poll) {
      const tally = countVotes(active);
      if (active.status === "open") {
        check(
          JSON.stringify(host.poll.results) === JSON.stringify(tally),
          () => `host tally ${short(host.poll?.results)} vs votes ${short(tally)}`,
        );
        check(
          tally.total === Object.keys(active.votes).length,
          () => `tally total ${tally.total} vs ${Object.keys(active.votes).length} votes`,
        );
      } else {
        const last = active.history.at(-1);
        check(
          JSON.stringify(host.poll.results) === JSON.stringify({ counts: last?.counts, total: last?.total }),
          () => `closed poll results ${short(host.poll?.results)} vs its last round ${short(last)}`,
        );
      }
    }
    // Nothing private in the public view: no votes, no answer or notes before the reveal.
    const pub = room.publicSnapshot();
    if (pub.poll) {
      check(!("votes" in pub.poll), () => "the public poll carries votes");
      if (!pub.poll.revealed) {
        check(pub.poll.correctOptionId === null, () => "the answer leaked before the reveal");
        check(
          pub.poll.options.every((o) => o.note === undefined),
          () => "notes leaked before the reveal",
        );
        check(s.resultsVisible || pub.poll.results === null, () => "results leaked while hidden");
      }
    }
    check(Object.keys(Object.prototype).length === 0, () => `Object.prototype was polluted: ${short(Object.keys(Object.prototype))}`);
    for (const tab of openTabs()) check(tab.client.socket.connected, () => `${tab.name} was disconnected`);
    const health = await fetch(`${srv.url}/api/health`);
    check(health.status === 200, () => `/api/health answered ${health.status}`);
    await health.body?.cancel();
    expect(bad, `${where()}: invariants broken`).toEqual([]);
  }

  /** The server's vote for a participant as the protocol lets a student read it. */
  function effectiveMyVote(tab: Tab): string | null {
    const snap = current(tab);
    const mine = tab.client.myVotes.at(-1) as MyVote | null | undefined;
    if (!snap.poll || !mine || mine.pollId !== snap.poll.id || mine.round !== snap.poll.round) return null;
    return mine.optionId;
  }

  /** Phase A: with no help, every client shows what it has been sent, and that is the server's state. */
  function convergedWithoutBarrier(): void {
    const s = state();
    const active = activePoll(s);
    const counts = active && active.status === "open" ? countVotes(active).counts : null;
    const at = `${where()} [checkpoint, before the barrier]`;
    for (const tab of openTabs()) {
      const snap = current(tab);
      if (tab.role === "host") {
        expect(withoutVoteDrift(snap, s, true), `${at}: ${tab.name} snapshot`).toEqual(withoutVoteDrift(room.hostSnapshot(), s, true));
        if (counts) expect(shownCounts(tab), `${at}: ${tab.name} tally`).toEqual(counts);
        continue;
      }
      expect(withoutVoteDrift(snap, s, false), `${at}: ${tab.name} snapshot`).toEqual(withoutVoteDrift(room.publicSnapshot(), s, false));
      if (counts && s.resultsVisible) expect(shownCounts(tab), `${at}: ${tab.name} visible tally`).toEqual(counts);
      if (tab.role === "projector") expect(tab.heardCount, `${at}: ${tab.name} participant count`).toBe(room.presence.connectedCount);
      if (tab.identity) {
        const participant = s.participants[tab.identity.participantId];
        expect(effectiveMyVote(tab), `${at}: ${tab.name} myVote`).toBe(active?.votes[tab.identity.participantId] ?? null);
        expect(tab.heardNickname, `${at}: ${tab.name} nickname`).toBe(participant.nickname);
      }
    }
  }

  /** Every snapshot and tally a client ever received equals the durable log's state at its rev. */
  function messagesMatchLog(events: SessionEvent[]): void {
    const states: SessionState[] = [initialState()];
    for (const e of events) states[e.seq] = reduce(states[e.seq - 1], e);
    const noPresence = { connectedCount: 0, isConnected: () => false };
    for (const tab of tabs) {
      const at = `${where()} [message history] ${tab.name}`;
      const { snapshots, tallies } = tab.client;
      for (; tab.checkedSnapshots < snapshots.length; tab.checkedSnapshots++) {
        const snap = snapshots[tab.checkedSnapshots];
        const st = states[snap.rev];
        expect(st, `${at}: snapshot rev ${snap.rev} is past the log`).toBeDefined();
        const expected = tab.role === "host" ? toHostSnapshot(st, noPresence) : toPublicSnapshot(st, 0);
        expect(withoutPresence(snap), `${at}: snapshot #${tab.checkedSnapshots} (rev ${snap.rev})`).toEqual(withoutPresence(expected));
      }
      for (; tab.checkedTallies < tallies.length; tab.checkedTallies++) {
        const tally = tallies[tab.checkedTallies];
        const st = states[tally.rev];
        const poll = st ? activePoll(st) : null;
        expect(poll?.id, `${at}: tally #${tab.checkedTallies} (rev ${tally.rev}) poll`).toBe(tally.pollId);
        expect(poll!.status, `${at}: tally for a poll that was not open`).toBe("open");
        expect(poll!.round, `${at}: tally round`).toBe(tally.round);
        expect({ counts: tally.counts, total: tally.total }, `${at}: tally counts`).toEqual(countVotes(poll!));
        if (tab.role !== "host") expect(st.resultsVisible, `${at}: the class got a tally while results were hidden`).toBe(true);
      }
    }
  }

  async function checkpoint(): Promise<void> {
    stats.checkpoints++;
    await vi.waitFor(() => convergedWithoutBarrier(), { timeout: CONVERGE_TIMEOUT_MS, interval: 25 });

    // Phase B: a publish reaches everyone; then every view equals the server's, rev included.
    const s = state();
    const panel = PROJECTOR_PANELS.find((p) => p !== s.projectorPanel)!;
    await command(await hostTab(), "projector:show", { panel }, "ok", ["projector:panelChanged"]);
    const seq = state().seq;
    await vi.waitFor(
      () => {
        for (const tab of openTabs()) expect(current(tab).rev, `${where()} [barrier]: ${tab.name} rev`).toBe(seq);
      },
      { timeout: CONVERGE_TIMEOUT_MS, interval: 25 },
    );
    const host = withoutPresence(room.hostSnapshot());
    const pub = withoutPresence(room.publicSnapshot());
    for (const tab of openTabs()) {
      expect(withoutPresence(current(tab)), `${where()} [barrier]: ${tab.name} snapshot`).toEqual(tab.role === "host" ? host : pub);
      if (tab.identity) {
        const active = activePoll(state());
        expect(effectiveMyVote(tab), `${where()} [barrier]: ${tab.name} myVote`).toBe(active?.votes[tab.identity.participantId] ?? null);
      }
    }
    // Each teacher tab's roster (whole, then changes) lists who the state holds, as the state holds them.
    const rows = (r: Iterable<RosterRow>) => [...r].map(({ connected: _c, ...row }) => row).sort((a, b) => a.number - b.number);
    const expected = rows(room.roster().rows);
    await vi.waitFor(
      () => {
        for (const tab of openTabs())
          if (tab.role === "host") expect(rows(tab.client.roster?.rows.values() ?? []), `${where()}: ${tab.name} roster`).toEqual(expected);
      },
      { timeout: CONVERGE_TIMEOUT_MS, interval: 25 },
    );
    const events = await durableEvents();
    messagesMatchLog(events);
    expect(replay(events), `${where()}: replaying the durable log`).toEqual(state());
    whatStudentsSeeMatchesTheLog(events);
  }

  /**
   * An oracle that does not use the production views or reducer: from the raw
   * log alone, what a student may see. Before the reveal no student's screen
   * holds the right answer or an option's note; counts shown equal the votes
   * in force (each participant's last logged vote of the round, removed
   * participants left out).
   */
  function whatStudentsSeeMatchesTheLog(events: SessionEvent[]): void {
    const opened = new Map<string, Extract<SessionEvent, { type: "poll:opened" }>>();
    const roundVotes = new Map<string, Map<string, string>>();
    const removed = new Set<string>();
    for (const e of events) {
      if (e.type === "poll:opened") {
        opened.set(e.poll.id, e);
        roundVotes.set(e.poll.id, new Map());
      } else if (e.type === "poll:reopened") roundVotes.set(e.pollId, new Map());
      else if (e.type === "poll:voted") roundVotes.get(e.pollId)?.set(e.participantId, e.optionId);
      else if (e.type === "participant:removed") removed.add(e.participantId);
    }
    for (const tab of openTabs()) {
      const snap = current(tab);
      if (tab.role === "host" || !snap.poll) continue;
      const poll = snap.poll;
      const raw = opened.get(poll.id);
      expect(raw, `${where()} [independent]: ${tab.name} shows a poll the log never opened`).toBeDefined();
      const screen = JSON.stringify(poll);
      if (poll.status !== "revealed" && raw!.poll.correctOptionId !== null) {
        expect(poll.correctOptionId, `${where()} [independent]: ${tab.name} holds the answer before the reveal`).toBeNull();
        for (const o of raw!.poll.options) {
          if (o.note) expect(screen.includes(o.note), `${where()} [independent]: ${tab.name} holds a note before the reveal`).toBe(false);
        }
      }
      if (poll.status === "open" && poll.results) {
        const inForce = [...(roundVotes.get(poll.id) ?? new Map()).entries()].filter(([pid]) => !removed.has(pid));
        expect(poll.results.total, `${where()} [independent]: ${tab.name} count of votes`).toBe(inForce.length);
        for (const o of raw!.poll.options) {
          expect(poll.results.counts[o.id] ?? 0, `${where()} [independent]: ${tab.name} count for ${o.id}`).toBe(
            inForce.filter(([, v]) => v === o.id).length,
          );
        }
      }
    }
  }

  // -------------------------------------------------------------------------
  // Oracles: what docs/protocol.md says each command answers, from the state before it

  const hasPoll = (s: SessionState, id: string) => Object.hasOwn(s.polls, id);
  const liveParticipant = (s: SessionState, id: string) => Object.hasOwn(s.participants, id) && !s.participants[id].removed;

  function voteOutcome(s: SessionState, identity: Identity, pollId: string, optionId: string): { outcome: Outcome; writes: EventType[] } {
    // docs/protocol.md: while the teacher has paused the class, every vote is refused first.
    if (s.paused) return { outcome: "CLASS_PAUSED", writes: [] };
    const poll = hasPoll(s, pollId) ? s.polls[pollId] : null;
    if (!poll || s.activePollId !== pollId) return { outcome: "NO_SUCH_POLL", writes: [] };
    if (poll.status !== "open") return { outcome: "POLL_CLOSED", writes: [] };
    if (!poll.options.some((o) => o.id === optionId)) return { outcome: "NO_SUCH_OPTION", writes: [] };
    if (!liveParticipant(s, identity.participantId)) return { outcome: "REMOVED", writes: [] };
    if (poll.votes[identity.participantId] === optionId) return { outcome: "ok", writes: [] };
    // docs/protocol.md: at most MAX_VOTES_PER_ROUND logged votes per participant and round.
    const logged = poll.voteWrites[identity.participantId] ?? 0;
    if (logged >= MAX_VOTES_PER_ROUND) return { outcome: "VOTE_LIMIT", writes: [] };
    return { outcome: "ok", writes: ["poll:voted"] };
  }

  function pickPollId(): string {
    const s = state();
    const roll = rng.int(100);
    if (roll < 55 && s.activePollId) return s.activePollId;
    if (roll < 80 && s.pollOrder.length) return rng.pick(s.pollOrder);
    if (roll < 90) return rng.pick(PROTOTYPE_KEYS);
    return `${rng.hex(8)}-${rng.hex(4)}`;
  }

  function pickParticipantId(): string {
    const roll = rng.int(100);
    if (roll < 80 && identities.length) return rng.pick(identities).participantId;
    if (roll < 90) return rng.pick(PROTOTYPE_KEYS);
    return rng.hex(12);
  }

  // -------------------------------------------------------------------------
  // Students

  async function join(raw: string | undefined, extraAuth: Record<string, unknown> = {}): Promise<void> {
    const before = state();
    const expected: Outcome = raw !== undefined && raw.length > NICKNAME_MAX * 4 ? "BAD_REQUEST" : before.locked ? "ROOM_LOCKED" : "ok";
    if (expected === "BAD_REQUEST") countedFailures++;
    const count = Object.keys(before.participants).length;
    const result = await tryConnect({ role: "student", code, nickname: raw, ...extraAuth });
    const what = `${where()}: join with nickname ${short(raw)}`;
    if ("error" in result) {
      if (result.error === "RATE_LIMITED") stats.rateLimited++;
      else expect(result.error, what).toBe(expected);
      expect(await writesSince(before), `${what}: a refused join wrote events`).toEqual([]);
      return;
    }
    expect(expected, `${what}: was admitted`).toBe("ok");
    const welcome = result.client.welcome!;
    const nickname = (raw === undefined ? "" : cleanText(raw, NICKNAME_MAX)) || `Student ${count + 1}`;
    expect(welcome, what).toMatchObject({ role: "student", sessionId, nickname });
    expect(typeof welcome.token === "string" && welcome.token.length >= 32, `${what}: token`).toBe(true);
    expect(Object.hasOwn(before.participants, welcome.participantId!), `${what}: reused a participant id`).toBe(false);
    expect(await writesSince(before), `${what}: wrote`).toEqual(["participant:joined"]);
    const identity: Identity = {
      participantId: welcome.participantId!,
      token: welcome.token!,
      nickname,
      removed: false,
      votes: new Budget(10, 4),
    };
    identities.push(identity);
    addTab("student", result.client, identity, `student ${identities.length} tab 1`);
    stats.joins++;
  }

  /** Back with the stored token: same participant, same vote; a new nickname is a rename. */
  async function rejoin(identity: Identity, raw: string | undefined, why: string): Promise<void> {
    const before = state();
    const result = await tryConnect({ role: "student", code, token: identity.token, nickname: raw });
    const what = `${where()}: ${why} as ${identity.participantId} with nickname ${short(raw)}`;
    if ("error" in result) {
      if (result.error === "RATE_LIMITED") stats.rateLimited++;
      else expect(result.error, what).toBe(identity.removed ? "REMOVED" : "(admitted)");
      expect(await writesSince(before), `${what}: a refused join wrote events`).toEqual([]);
      return;
    }
    expect(identity.removed, `${what}: a removed participant got back in`).toBe(false);
    const cleaned = raw === undefined ? "" : cleanText(raw, NICKNAME_MAX);
    const renamed = cleaned !== "" && cleaned !== identity.nickname;
    if (renamed) identity.nickname = cleaned;
    const welcome = result.client.welcome!;
    expect(welcome, what).toMatchObject({
      role: "student",
      participantId: identity.participantId,
      token: identity.token,
      nickname: identity.nickname,
    });
    expect(await writesSince(before), `${what}: wrote`).toEqual(renamed ? ["participant:renamed"] : []);
    const n = tabs.filter((t) => t.identity === identity).length + 1;
    addTab("student", result.client, identity, `student ${identities.indexOf(identity) + 1} tab ${n}`);
  }

  async function vote(tab: Tab, pollId: string, optionId: string): Promise<void> {
    const identity = tab.identity!;
    const { outcome, writes } = voteOutcome(state(), identity, pollId, optionId);
    const ack = await command(tab, "poll:vote", { pollId, optionId }, outcome, writes);
    if (!ack.ok) return;
    stats.votes++;
    const mine: MyVote = { pollId, round: state().polls[pollId].round, optionId, rev: (ack.data as MyVote).rev };
    // The receipt's position: the vote's own event when it wrote one, else where the log already was.
    expect(mine.rev, `${where()}: vote receipt rev`).toBe(writes.length ? state().seq : mine.rev);
    expect(ack.data, `${where()}: vote receipt`).toEqual(mine);
    if (writes.length === 0) return;
    // A changed vote reaches every tab of that student (docs: "each tab gets that participant's poll:myVote").
    const mirrors = tabs.filter((t) => t.open && t.identity === identity);
    await waitUntil(
      () => mirrors.every((t) => JSON.stringify(t.client.myVotes.at(-1)) === JSON.stringify(mine)),
      CONVERGE_TIMEOUT_MS,
    ).catch(() => undefined);
    for (const t of mirrors) expect(t.client.myVotes.at(-1), `${where()}: ${t.name} poll:myVote after ${tab.name} voted`).toEqual(mine);
  }

  const studentTabs = () => openTabs("student").filter((t) => t.identity && !t.identity.removed);

  // -------------------------------------------------------------------------
  // Actions: [weight, run]; run returns false when it does not apply now.

  type Action = [number, () => Promise<boolean>];
  const actions: Record<string, Action> = {
    join: [
      8,
      async () => {
        await join(nicknameFor(rng, identities.length + 1));
        return true;
      },
    ],
    leave: [
      5,
      async () => {
        const candidates = studentTabs();
        if (!candidates.length) return false;
        closeTab(rng.pick(candidates));
        return true;
      },
    ],
    reconnect: [
      5,
      async () => {
        const away = identities.filter((i) => !tabs.some((t) => t.open && t.identity === i));
        if (!away.length) return false;
        const identity = rng.pick(away);
        const raw = rng.pick([undefined, identity.nickname, nicknameFor(rng, 0)]);
        await rejoin(identity, raw, identity.removed ? "removed student reconnects" : "reconnect");
        return true;
      },
    ],
    secondTab: [
      3,
      async () => {
        const here = identities.filter((i) => !i.removed && tabs.some((t) => t.open && t.identity === i));
        if (!here.length) return false;
        const identity = rng.pick(here);
        // The same browser: the same stored nickname, or none.
        await rejoin(identity, rng.pick([undefined, identity.nickname]), "second tab");
        return true;
      },
    ],
    vote: [
      18,
      async () => {
        const candidates = studentTabs();
        const snapPoll = candidates.length ? current(candidates[0]).poll : null;
        if (!candidates.length || !snapPoll) return false;
        const tab = rng.pick(candidates);
        const poll = current(tab).poll ?? snapPoll;
        await vote(tab, poll.id, rng.pick(poll.options).id);
        return true;
      },
    ],
    voteWave: [
      4,
      async () => {
        const s = state();
        const poll = activePoll(s);
        const candidates = studentTabs();
        if (!poll || poll.status !== "open" || s.paused || candidates.length < 3) return false;
        const wave = Array.from({ length: rng.range(3, Math.min(15, candidates.length)) }, () => rng.pick(candidates));
        const choices = wave.map(() => rng.pick(poll.options).id);
        // Concurrent votes from different students do not interact; the same student twice just replaces.
        const acks = await Promise.all(
          wave.map((tab, k) => {
            if (tab.identity) tab.identity.votes.take();
            return tab.client.emit("poll:vote", { pollId: poll.id, optionId: choices[k] });
          }),
        );
        acks.forEach((ack, k) => {
          expectErrorShape(ack);
          if (!ack.ok && ack.error.code === "RATE_LIMITED") return void stats.rateLimited++;
          expect(ack, `${where()}: wave vote ${k} by ${wave[k].name}`).toEqual({
            ok: true,
            data: { pollId: poll.id, round: poll.round, optionId: choices[k], rev: expect.any(Number) },
          });
          stats.votes++;
        });
        const types = new Set(await writesSince(s));
        expect(
          [...types].every((t) => t === "poll:voted"),
          `${where()}: a vote wave wrote ${short([...types])}`,
        ).toBe(true);
        return true;
      },
    ],
    badVote: [
      5,
      async () => {
        const candidates = studentTabs();
        if (!candidates.length) return false;
        const tab = rng.pick(candidates);
        const s = state();
        const pollId = rng.chance(0.5) && s.activePollId ? s.activePollId : pickPollId();
        const optionId = rng.pick(["o9", "o0", "O1", "", "x".repeat(64), ...PROTOTYPE_KEYS, "o1", "o2"]);
        if (optionId === "" || pollId === "") {
          await command(tab, "poll:vote", { pollId, optionId }, "BAD_REQUEST", []);
          return true;
        }
        await vote(tab, pollId, optionId);
        return true;
      },
    ],

    reload: [
      3,
      async () => {
        // A page reload: the old socket closes and the new one connects at once, in either order at the server.
        const candidates = studentTabs();
        if (!candidates.length) return false;
        const tab = rng.pick(candidates);
        const identity = tab.identity!;
        closeTab(tab);
        await rejoin(identity, rng.pick([undefined, identity.nickname, nicknameFor(rng, 0)]), "reload");
        return true;
      },
    ],
    secondTabRenamed: [
      1,
      async () => {
        // Another tab of the same browser, where the student typed a different name.
        const here = identities.filter((i) => !i.removed && tabs.some((t) => t.open && t.identity === i));
        if (!here.length) return false;
        const identity = rng.pick(here);
        await rejoin(identity, `${identity.nickname.slice(0, 20)} ${rng.hex(3)}`, "second tab, renamed");
        return true;
      },
    ],
    raceVotesWithTeacher: [
      3,
      async () => {
        // Votes in flight while the teacher closes, reopens, hides results or removes a voter.
        const s = state();
        const poll = activePoll(s);
        const voters = studentTabs();
        if (!poll || voters.length < 3) return false;
        const wave = Array.from({ length: rng.range(3, Math.min(10, voters.length)) }, () => rng.pick(voters));
        const choices = wave.map(() => rng.pick(poll.options).id);
        const move = rng.pick(["close", "reopen", "results", "remove", "openNew", "pause"] as const);
        const victim = move === "remove" ? wave[0].identity! : null;
        const kicked = victim ? tabs.filter((t) => t.open && t.identity === victim) : [];
        for (const tab of kicked) tab.open = false;
        label = `race: ${wave.length} votes vs ${move}`;
        const host = await hostTab();
        const teacherPayload =
          move === "close"
            ? { pollId: poll.id }
            : move === "reopen"
              ? { pollId: poll.id }
              : move === "results"
                ? { visible: !s.resultsVisible }
                : move === "remove"
                  ? { participantId: victim!.participantId }
                  : move === "pause"
                    ? { paused: !s.paused }
                    : { kind: "custom", question: "Race?", options: ["yes", "no"] };
        const teacherEvent: EventName =
          move === "close"
            ? "poll:close"
            : move === "reopen"
              ? "poll:reopen"
              : move === "results"
                ? "results:show"
                : move === "remove"
                  ? "participant:remove"
                  : move === "pause"
                    ? "class:pause"
                    : "poll:open";
        const [teacherAck, ...voteAcks] = await Promise.all([
          emitMaybe(host, teacherEvent, teacherPayload),
          ...wave.map((tab, k) => emitMaybe(tab, "poll:vote", { pollId: poll.id, optionId: choices[k] })),
        ]);
        const at = `${where()}: ${host.name} ${teacherEvent} ${short(teacherPayload)}`;
        expect(teacherAck, `${at} got no reply`).not.toBe("no reply");
        if (teacherAck !== "no reply") {
          expectErrorShape(teacherAck);
          const allowed: Outcome[] =
            move === "close"
              ? poll.status === "open"
                ? ["ok"]
                : ["POLL_CLOSED"]
              : move === "reopen" || move === "openNew"
                ? poll.status === "open"
                  ? ["POLL_ALREADY_OPEN"]
                  : ["ok"]
                : ["ok"];
          expect([...allowed, "RATE_LIMITED"], `${at} answered ${short(teacherAck)}`).toContain(
            teacherAck.ok ? "ok" : teacherAck.error.code,
          );
        }
        if (victim && teacherAck !== "no reply" && teacherAck.ok) victim.removed = true;
        else for (const tab of kicked) tab.open = true;
        voteAcks.forEach((ack, k) => {
          const tab = wave[k];
          const gone = victim !== null && tab.identity === victim && victim.removed;
          if (ack === "no reply") return void expect(gone, `${where()}: ${tab.name}'s vote got no reply`).toBe(true);
          expectErrorShape(ack);
          const code = ack.ok ? "ok" : ack.error.code;
          expect(
            ["ok", "POLL_CLOSED", "NO_SUCH_POLL", "REMOVED", "RATE_LIMITED", ...(s.paused || move === "pause" ? ["CLASS_PAUSED"] : [])],
            `${where()}: ${tab.name} vote answered ${short(ack)}`,
          ).toContain(code);
          if (ack.ok) expect((ack.data as MyVote).pollId, `${where()}: vote receipt`).toBe(poll.id);
        });
        if (victim?.removed) {
          await waitUntil(() => kicked.every((t) => !t.client.socket.connected), CONVERGE_TIMEOUT_MS).catch(() => undefined);
          for (const tab of kicked) expect(tab.client.socket.connected, `${where()}: ${tab.name} was not kicked`).toBe(false);
        }
        return true;
      },
    ],
    twoTeachersAtOnce: [
      2,
      async () => {
        // Two teacher tabs race: the room applies commands one at a time, so at most one poll opens.
        const hosts = openTabs("host");
        if (hosts.length < 2) return false;
        const before = state();
        const wasOpen = activePoll(before)?.status === "open";
        const a = await hostTab();
        let b = await hostTab();
        if (b === a) b = hosts.find((t) => t !== a)!;
        const [ackA, ackB] = await Promise.all([
          emitMaybe(a, "poll:open", { kind: "next-step" }),
          emitMaybe(b, "poll:open", { kind: "custom", question: "Which first?", options: ["PVC", "Pod", "PV"], correctIndex: 1 }),
        ]);
        const codes = [ackA, ackB].map((ack) => (ack === "no reply" ? "no reply" : ack.ok ? "ok" : ack.error.code));
        expect(codes.includes("no reply"), `${where()}: ${short(codes)}`).toBe(false);
        expect(codes.filter((c) => c === "ok").length, `${where()}: two polls opened at once: ${short(codes)}`).toBeLessThanOrEqual(1);
        if (wasOpen)
          expect(
            codes.every((c) => c === "POLL_ALREADY_OPEN" || c === "RATE_LIMITED"),
            `${where()}: ${short(codes)}`,
          ).toBe(true);
        return true;
      },
    ],

    // ---- the teacher
    stepMove: [
      8,
      async () => {
        const s = state();
        const delta = rng.pick([1, 1, -1] as const);
        const total = getScenario(s.mode, s.variant).steps.length;
        const target = Math.min(total - 1, Math.max(0, s.stepIndex + delta));
        await command(await hostTab(), "step:move", { delta }, "ok", target === s.stepIndex ? [] : ["step:changed"]);
        return true;
      },
    ],
    stepGo: [
      5,
      async () => {
        const s = state();
        const stepIndex = rng.pick([rng.range(0, 13), rng.range(0, 13), -1, 99, 100, 2.5]);
        const total = getScenario(s.mode, s.variant).steps.length;
        const valid = Number.isInteger(stepIndex) && stepIndex >= 0 && stepIndex <= 99;
        const outcome: Outcome = !valid ? "BAD_REQUEST" : stepIndex >= total ? "STEP_OUT_OF_RANGE" : "ok";
        await command(await hostTab(), "step:go", { stepIndex }, outcome, stepIndex === s.stepIndex ? [] : ["step:changed"]);
        return true;
      },
    ],
    modeSet: [
      5,
      async () => {
        const s = state();
        const mode = rng.pick(BINDING_MODES);
        const variant = rng.pick([undefined, ...VARIANTS]);
        const same = mode === s.mode && (variant ?? "standard") === s.variant;
        const outcome: Outcome = isVariantOf(mode, variant ?? "standard") ? "ok" : "BAD_MODE";
        const ack = await command(await hostTab(), "mode:set", { mode, variant }, outcome, same ? [] : ["mode:changed"]);
        if (ack.ok) expect(typeof (ack.data as { matched: unknown }).matched, `${where()}: mode:set data`).toBe("boolean");
        return true;
      },
    ],
    openNextStep: [
      5,
      async () => {
        const s = state();
        const durationS = rng.pick([undefined, 0, 0, 0, 15, 7]);
        const current = activePoll(s);
        const last = s.stepIndex === getScenario(s.mode, s.variant).steps.length - 1;
        const outcome: Outcome =
          durationS === 7 ? "BAD_REQUEST" : current?.status === "open" ? "POLL_ALREADY_OPEN" : last ? "NO_NEXT_STEP" : "ok";
        const ack = await command(await hostTab(), "poll:open", { kind: "next-step", durationS }, outcome, ["poll:opened"]);
        if (ack.ok) expect(state().activePollId, `${where()}: opened poll id`).toBe((ack.data as { pollId: string }).pollId);
        return true;
      },
    ],
    openCustom: [
      4,
      async () => {
        const s = state();
        const options = Array.from({ length: rng.pick([2, 2, 3, 4, 6, 1, 7]) }, () => textFor(rng, 120));
        const payload = {
          kind: "custom",
          question: textFor(rng, 200),
          options,
          correctIndex: rng.pick([undefined, null, 0, 1, rng.int(7)]),
          durationS: rng.pick([undefined, 0]),
        };
        const parsed = COMMAND_TABLE["poll:open"].schema.safeParse(onTheWire(payload));
        const outcome: Outcome = !parsed.success
          ? "BAD_REQUEST"
          : activePoll(s)?.status === "open"
            ? "POLL_ALREADY_OPEN"
            : (payload.correctIndex ?? -1) >= options.length
              ? "BAD_REQUEST"
              : "ok";
        const ack = await command(await hostTab(), "poll:open", payload, outcome, ["poll:opened"]);
        if (ack.ok) {
          const poll = state().polls[(ack.data as { pollId: string }).pollId];
          expect(
            poll.options.map((o) => o.text),
            `${where()}: option texts`,
          ).toEqual(options.map((o) => cleanText(o, 120)));
          expect(poll.question, `${where()}: question`).toBe(cleanText(payload.question, 200));
        }
        return true;
      },
    ],
    close: [
      5,
      async () => {
        const s = state();
        const pollId = pickPollId();
        const outcome: Outcome = !hasPoll(s, pollId) ? "NO_SUCH_POLL" : s.polls[pollId].status !== "open" ? "POLL_CLOSED" : "ok";
        await command(await hostTab(), "poll:close", { pollId }, outcome, ["poll:closed"]);
        return true;
      },
    ],
    reveal: [
      3,
      async () => {
        const s = state();
        const pollId = pickPollId();
        const status = hasPoll(s, pollId) ? s.polls[pollId].status : null;
        const outcome: Outcome = status === null ? "NO_SUCH_POLL" : status === "open" ? "POLL_NOT_CLOSED" : "ok";
        await command(await hostTab(), "poll:reveal", { pollId }, outcome, status === "revealed" ? [] : ["poll:revealed"]);
        return true;
      },
    ],
    reopen: [
      3,
      async () => {
        const s = state();
        const pollId = pickPollId();
        const outcome: Outcome = !hasPoll(s, pollId) ? "NO_SUCH_POLL" : activePoll(s)?.status === "open" ? "POLL_ALREADY_OPEN" : "ok";
        await command(await hostTab(), "poll:reopen", { pollId, durationS: rng.pick([undefined, 0, 15]) }, outcome, ["poll:reopened"]);
        return true;
      },
    ],
    results: [
      3,
      async () => {
        const visible = rng.chance(0.5);
        await command(await hostTab(), "results:show", { visible }, "ok", visible === state().resultsVisible ? [] : ["results:visibility"]);
        return true;
      },
    ],
    panel: [
      2,
      async () => {
        const panel = rng.pick(PROJECTOR_PANELS);
        await command(
          await hostTab(),
          "projector:show",
          { panel },
          "ok",
          panel === state().projectorPanel ? [] : ["projector:panelChanged"],
        );
        return true;
      },
    ],
    pause: [
      1,
      async () => {
        // Pauses are short: a paused class mostly resumes at the next roll.
        const paused = state().paused ? rng.chance(0.2) : rng.chance(0.7);
        await command(await hostTab(), "class:pause", { paused }, "ok", paused === state().paused ? [] : ["class:paused"]);
        return true;
      },
    ],
    lock: [
      1.5,
      async () => {
        const locked = state().locked ? rng.chance(0.2) : rng.chance(0.6);
        await command(await hostTab(), "room:lock", { locked }, "ok", locked === state().locked ? [] : ["room:locked"]);
        return true;
      },
    ],
    remove: [
      1.5,
      async () => {
        const participantId = pickParticipantId();
        const outcome: Outcome = liveParticipant(state(), participantId) ? "ok" : "NO_SUCH_PARTICIPANT";
        const identity = outcome === "ok" ? identities.find((i) => i.participantId === participantId) : undefined;
        // The kick may land before the ack: these tabs are expected to go.
        const kicked = tabs.filter((t) => t.open && identity && t.identity === identity);
        for (const tab of kicked) tab.open = false;
        const ack = await command(await hostTab(), "participant:remove", { participantId }, outcome, ["participant:removed"]);
        if (identity) identity.removed = ack.ok;
        if (ack.ok) {
          await waitUntil(() => kicked.every((t) => !t.client.socket.connected), CONVERGE_TIMEOUT_MS).catch(() => undefined);
          for (const tab of kicked) {
            expect(tab.client.socket.connected, `${where()}: ${tab.name} was not disconnected`).toBe(false);
            expect(tab.client.kicked, `${where()}: ${tab.name} kick reason`).toContainEqual(expect.objectContaining({ code: "REMOVED" }));
          }
        } else for (const tab of kicked) tab.open = true;
        return true;
      },
    ],
    rename: [
      2,
      async () => {
        const participantId = pickParticipantId();
        const raw = nicknameFor(rng, 99) ?? "";
        const s = state();
        const cleaned = cleanText(raw, NICKNAME_MAX);
        const outcome: Outcome =
          raw.length > NICKNAME_MAX * 4 || cleaned === ""
            ? "BAD_REQUEST"
            : liveParticipant(s, participantId)
              ? "ok"
              : "NO_SUCH_PARTICIPANT";
        const same = outcome === "ok" && s.participants[participantId].nickname === cleaned;
        const ack = await command(
          await hostTab(),
          "participant:rename",
          { participantId, nickname: raw },
          outcome,
          same ? [] : ["participant:renamed"],
        );
        const identity = identities.find((i) => i.participantId === participantId);
        if (ack.ok && identity) identity.nickname = cleaned;
        return true;
      },
    ],

    // ---- hostile clients
    garbage: [
      6,
      async () => {
        const tab = rng.pick(openTabs());
        const event = rng.pick(FUZZABLE_COMMANDS);
        const payload = garbagePayload(rng);
        // The frame on the wire is `2<ack id>["event",payload]`; the ack id is 1 to 6 digits.
        const body = JSON.stringify([event, onTheWire(payload)]);
        let expected: Outcome | Outcome[] | null;
        if (body.length + 2 > FRAME_LIMITS.maxFrameChars || nestingExceeds(body, FRAME_LIMITS.maxDepth)) expected = "PAYLOAD_TOO_LARGE";
        else if (!COMMAND_TABLE[event].roles.includes(tab.role))
          expected = COMMAND_TABLE[event].roles.includes("student") ? "NOT_STUDENT" : "NOT_HOST";
        // session:sync carries nothing, so the server may ignore what it is sent.
        else if (event === "session:sync") expected = ["ok", "BAD_REQUEST"];
        else expected = COMMAND_TABLE[event].schema.safeParse(onTheWire(payload) ?? {}).success ? null : "BAD_REQUEST";
        // Right at the limit the ack id's length decides.
        if (expected !== null && expected !== "PAYLOAD_TOO_LARGE" && body.length + 7 > FRAME_LIMITS.maxFrameChars)
          expected = ["PAYLOAD_TOO_LARGE", ...[expected].flat()];
        await command(tab, event, payload, expected, null);
        return true;
      },
    ],
    teacherCommandFromClass: [
      3,
      async () => {
        const candidates = openTabs().filter((t) => t.role !== "host");
        if (!candidates.length) return false;
        const tab = rng.pick(candidates);
        const event = rng.pick(TEACHER_COMMANDS);
        const payload = rng.pick([
          { delta: 1 },
          { stepIndex: 3 },
          { mode: "Immediate" },
          { kind: "next-step" },
          { pollId: state().activePollId ?? "p" },
          { visible: true },
          { locked: true },
          { participantId: tab.identity?.participantId ?? "x" },
          {},
        ]);
        await command(tab, event, payload, "NOT_HOST", []);
        return true;
      },
    ],
    voteFromNonStudent: [
      1,
      async () => {
        const candidates = openTabs().filter((t) => t.role !== "student");
        const pollId = state().activePollId;
        if (!candidates.length || !pollId) return false;
        await command(rng.pick(candidates), "poll:vote", { pollId, optionId: "o1" }, "NOT_STUDENT", []);
        return true;
      },
    ],
    unknownEvent: [
      2,
      async () => {
        const tab = rng.pick(openTabs());
        const name = rng.pick([
          "admin:nuke",
          "__proto__",
          "constructor",
          "toString",
          "hasOwnProperty",
          "session:welcome",
          "poll:tally",
          "error",
          "step:GO",
          "x".repeat(100),
        ]);
        await command(tab, name as EventName, { stepIndex: 1 }, "UNKNOWN_EVENT", []);
        return true;
      },
    ],
    reservedEvent: [
      1,
      async () => {
        // Names socket.io reserves, sent as raw packets (the client library refuses to emit them):
        // the server answers UNKNOWN_EVENT like any other unknown name, and the connection stays.
        const candidates = openTabs().filter((t) => t.role !== "host");
        if (!candidates.length) return false;
        const tab = rng.pick(candidates);
        const name = rng.pick(["disconnect", "disconnecting", "connect", "newListener", "removeListener", "connect_error"]);
        label = `reservedEvent ${name} from ${tab.name}`;
        const raw = tab.client.socket as unknown as { packet(p: unknown): void; acks: Record<number, (r: unknown) => void> };
        const id = 1_000_000 + rng.int(1_000_000);
        const reply = await new Promise<unknown>((resolve) => {
          const timer = setTimeout(() => resolve("no reply"), 1_500);
          raw.acks[id] = (r) => {
            clearTimeout(timer);
            resolve(r);
          };
          raw.packet({ type: 2, id, data: [name, {}], options: { compress: true } });
        });
        expect(reply, `${where()}: a reserved event name got no named refusal`).toMatchObject({
          ok: false,
          error: { code: "UNKNOWN_EVENT" },
        });
        expect(tab.client.socket.connected, `${where()}: the connection closed after a reserved event name`).toBe(true);
        return true;
      },
    ],
    missingPayload: [
      1.5,
      async () => {
        // docs/protocol.md: a missing payload is treated as {}, and every command gets exactly one reply.
        const tab = rng.pick(openTabs());
        const event = rng.pick(["session:sync", "step:move", "poll:vote", "results:show"] as const);
        const extraArgs = rng.chance(0.5);
        tab.commands.take();
        const reply = await new Promise<Ack<unknown> | "no reply">((resolve) => {
          const timer = setTimeout(() => resolve("no reply"), 1_500);
          const args: unknown[] = extraArgs ? [{}, "extra"] : [];
          (tab.client.socket.emit as (e: string, ...a: unknown[]) => void)(event, ...args, (r: Ack<unknown>) => {
            clearTimeout(timer);
            resolve(r);
          });
        });
        expect(reply, `${where()}: ${tab.name} ${event} with ${extraArgs ? "an extra argument" : "no payload"} got no reply`).not.toBe(
          "no reply",
        );
        if (reply !== "no reply") expectErrorShape(reply);
        return true;
      },
    ],
    tooLargeCommand: [
      1,
      async () => {
        const tab = rng.pick(openTabs());
        const payload = { pollId: "p", optionId: "x".repeat(MAX_COMMAND_PAYLOAD_BYTES + rng.int(1_000)) };
        await command(tab, rng.pick(FUZZABLE_COMMANDS), payload, "PAYLOAD_TOO_LARGE", []);
        expect(tab.client.socket.connected, `${where()}: a refused oversized command dropped the socket`).toBe(true);
        return true;
      },
    ],
    badHandshake: [
      2,
      async () => {
        const cases: { auth: Record<string, unknown>; expect: Outcome; counted: boolean }[] = [
          { auth: { v: undefined, role: "student", code }, expect: "CLIENT_TOO_OLD", counted: true },
          { auth: { v: "1", role: "student", code }, expect: "CLIENT_TOO_OLD", counted: true },
          { auth: { v: 2, role: "host", code, hostKey }, expect: "CLIENT_TOO_OLD", counted: true },
          { auth: { v: 1.5, role: "projector", code }, expect: "CLIENT_TOO_OLD", counted: true },
          { auth: { role: "admin", code }, expect: "BAD_REQUEST", counted: true },
          { auth: { role: "student", code: 123456 }, expect: "BAD_REQUEST", counted: true },
          { auth: { role: "projector", code: "x".repeat(17) }, expect: "BAD_REQUEST", counted: true },
          { auth: { role: "host", code }, expect: "NOT_HOST", counted: true },
          { auth: { role: "host", code, hostKey: rng.hex(43) }, expect: "NOT_HOST", counted: true },
          { auth: { role: "host", code, hostKey: hostKey.slice(0, -1) }, expect: "NOT_HOST", counted: true },
          { auth: { role: "host", code, hostKey: "k".repeat(129) }, expect: "BAD_REQUEST", counted: true },
          { auth: { role: "student", code: "ZZZZZZ" }, expect: "NO_SUCH_SESSION", counted: true },
          { auth: { role: "projector", code: "__proto__" }, expect: "NO_SUCH_SESSION", counted: true },
          { auth: { role: "student", code, token: 42 }, expect: "BAD_REQUEST", counted: true },
          { auth: { role: "student", code, nickname: "x".repeat(10_000) }, expect: "BAD_REQUEST", counted: true },
          // Admitted: a messy but valid code, and a host key offered by a projector (ignored).
          { auth: { role: "projector", code: ` ${code.slice(0, 3).toLowerCase()}-${code.slice(3)} ` }, expect: "ok", counted: false },
          { auth: { role: "projector", code, hostKey, token: "t" }, expect: "ok", counted: false },
          { auth: JSON.parse(`{"role":"projector","code":"${code}","__proto__":{"role":"host"}}`), expect: "ok", counted: false },
        ];
        const affordable = cases.filter((c) => !c.counted || countedFailures < COUNTED_HANDSHAKE_FAILURES_PER_SEED);
        const chosen = rng.pick(affordable);
        if (chosen.counted) countedFailures++;
        const before = state();
        // A locked room admits no new projector unless it holds the host key.
        const expected: Outcome =
          chosen.expect === "ok" && before.locked && chosen.auth.hostKey !== hostKey ? "ROOM_LOCKED" : chosen.expect;
        const result = await tryConnect(chosen.auth);
        const what = `${where()}: handshake ${short(chosen.auth)}`;
        if ("error" in result) {
          if (result.error === "RATE_LIMITED") stats.rateLimited++;
          else expect(result.error, what).toBe(expected);
        } else {
          expect(expected, `${what} was admitted`).toBe("ok");
          expect(result.client.welcome?.role, what).toBe("projector");
          result.client.close();
        }
        expect(await writesSince(before), `${what}: wrote`).toEqual([]);
        return true;
      },
    ],
    nonObjectAuth: [
      0.5,
      async () => {
        const socket = rawConnect(srv.url, {
          transports: ["websocket"],
          reconnection: false,
          forceNew: true,
          auth: (cb) => cb(rng.pick(["junk", [1, 2], 42]) as never),
        });
        const outcome = await new Promise<string>((resolve) => {
          const timer = setTimeout(() => resolve("silence"), 1_500);
          socket.once("connect", () => (clearTimeout(timer), resolve("connected")));
          socket.once("connect_error", () => (clearTimeout(timer), resolve("refused")));
          socket.once("disconnect", () => (clearTimeout(timer), resolve("closed")));
        });
        socket.close();
        expect(outcome, `${where()}: a non-object auth was admitted`).not.toBe("connected");
        return true;
      },
    ],
  };

  /** Once per seed: a message over the transport cap closes only that connection. */
  async function overTransportCap(): Promise<void> {
    const candidates = openTabs().filter((t) => t.role !== "host");
    const tab = rng.pick(candidates);
    label = `message over ${MAX_SOCKET_MESSAGE_BYTES} bytes from ${tab.name}`;
    trail.push(label);
    (tab.client.socket.emit as (e: string, p: unknown) => void)("poll:vote", {
      pollId: "x".repeat(MAX_SOCKET_MESSAGE_BYTES + 10),
      optionId: "o1",
    });
    await waitUntil(() => !tab.client.socket.connected, CONVERGE_TIMEOUT_MS).catch(() => undefined);
    expect(tab.client.socket.connected, `${where()}: the oversized message did not close its connection`).toBe(false);
    tab.open = false;
    await checkServerInvariants();
  }

  // -------------------------------------------------------------------------
  // Run

  try {
    for (let k = 0; k < HOST_TABS; k++)
      addTab("host", await connectClient(srv.url, { role: "host", code, hostKey }), null, `teacher tab ${k + 1}`);
    addTab("projector", await connectClient(srv.url, { role: "projector", code }), null, "projector");
    for (let k = 0; k < INITIAL_STUDENTS; k += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, INITIAL_STUDENTS - k) }, async (_, j) => {
          const raw = nicknameFor(rng, k + j + 1);
          const result = await tryConnect({ role: "student", code, nickname: raw });
          if ("error" in result) throw new Error(`seed ${seed}: student ${k + j} could not join: ${result.error}`);
          const w = result.client.welcome!;
          const identity: Identity = {
            participantId: w.participantId!,
            token: w.token!,
            nickname: w.nickname!,
            removed: false,
            votes: new Budget(10, 4),
          };
          identities.push(identity);
          addTab("student", result.client, identity, `student ${identities.length} tab 1`);
        }),
      );
    }
    await checkServerInvariants();

    const entries = Object.entries(actions);
    const totalWeight = entries.reduce((sum, [, [w]]) => sum + w, 0);
    const oversizeAt = rng.range(10, ACTIONS_PER_SEED - 10);
    for (actionIndex = 0; actionIndex < ACTIONS_PER_SEED; actionIndex++) {
      if (actionIndex === oversizeAt) {
        await overTransportCap();
        continue;
      }
      for (let attempt = 0; attempt < 20; attempt++) {
        let roll = rng.int(Math.round(totalWeight * 10)) / 10;
        const [name, [, run]] = entries.find(([, [w]]) => (roll -= w) < 0) ?? entries[0];
        label = name;
        trail.push(name);
        if (process.env.FUZZ_TRACE) console.error(`[fuzz ${seed}] #${actionIndex} ${name}`);
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
      if (actionIndex % CHECKPOINT_EVERY === CHECKPOINT_EVERY - 1) {
        label = "checkpoint";
        await checkpoint();
      }
    }
    label = "final checkpoint";
    await checkpoint();

    // The end: every connected client sees it, and the log still replays to the live state.
    label = "session:end";
    const ender = await hostTab();
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
    // A fuzz that was mostly refused (rate limits, a locked room) tested little.
    expect(stats.rateLimited, `seed ${seed}: ${short(stats)}`).toBeLessThan(stats.actions / 10);
    expect(stats.votes > 0 && stats.checkpoints > 0, `seed ${seed}: ${short(stats)}`).toBe(true);
  } finally {
    for (const tab of tabs) tab.client.close();
  }
}
