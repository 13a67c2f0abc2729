import { COMMANDS, type AnySnapshot, type ClientToServerEvents, type ErrorCode, type TallyUpdate } from "../../../lib/protocol";
import type { RosterRow, SessionEvent, SessionState } from "../../../lib/session";
import type { Room } from "../../../server/rooms/room";
import type { TestClient } from "../harness";
import { mulberry32 } from "../../support/random";

/** The fuzzer's vocabulary: its randomness, the commands and roles, the tabs it holds, and what a tab shows. */

// ---------------------------------------------------------------------------
// Randomness

export class Rng {
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

export type EventName = keyof ClientToServerEvents;
export type Role = "host" | "projector" | "student";
export type Outcome = "ok" | ErrorCode;
export type EventType = SessionEvent["type"];

interface Parser {
  safeParse(value: unknown): { success: boolean };
}

/** The schema and roles of every command: the protocol's own table. */
export const COMMAND_TABLE: Record<EventName, { schema: Parser; roles: readonly Role[] }> = COMMANDS;
export const TEACHER_COMMANDS = (Object.keys(COMMAND_TABLE) as EventName[]).filter(
  (e) => COMMAND_TABLE[e].roles.includes("host") && e !== "session:sync",
);
/** session:end is left out of random traffic: it would end the fuzz. It is exercised once, at the end. */
export const FUZZABLE_COMMANDS = (Object.keys(COMMAND_TABLE) as EventName[]).filter((e) => e !== "session:end");

/** Keys that a plain object inherits: ids that must read as unknown, never as found. */
export const PROTOTYPE_KEYS = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"];

/**
 * A local mirror of one of the server's token buckets; it is conservative because it starts later and spends a
 * token when a command is sent, before the server does on receiving it. The fuzz waits for a token rather than run
 * into the server's limit, so a seed's commands are answered alike on a fast machine and a loaded one.
 */
export class Budget {
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
  take(cost = 1): void {
    this.refill();
    this.tokens = Math.max(0, this.tokens - cost);
  }
  /** Milliseconds until `cost` tokens are there (0 when they are): the bucket's own refill, not a guess. */
  msUntilAvailable(cost = 1): number {
    this.refill();
    return this.tokens >= cost ? 0 : Math.ceil(((cost - this.tokens) / this.perSecond) * 1000);
  }
}

/**
 * A mirror of one of the server's buckets (RATE_LIMITS and FRAME_LIMITS in lib/constants.ts), a fifth smaller and
 * slower: the margin keeps the fuzz clear of the limit even when the two clocks tick a little apart under load.
 */
export const budgetOf = (limit: { capacity: number; refillPerSecond: number }) =>
  new Budget(Math.floor(limit.capacity * 0.8), limit.refillPerSecond * 0.8);

/** Waits until every one of `costs` ([budget, tokens]) can be paid, then pays them. */
export async function spendWhenAvailable(costs: [Budget, number][]): Promise<void> {
  for (;;) {
    const ms = Math.max(...costs.map(([b, cost]) => b.msUntilAvailable(cost)));
    if (ms === 0) break;
    await sleep(ms);
  }
  for (const [b, cost] of costs) b.take(cost);
}

export interface Identity {
  participantId: string;
  token: string;
  nickname: string;
  removed: boolean;
  /** Mirror of the server's per-participant vote bucket (10 burst, 4/s). */
  votes: Budget;
}

export interface Tab {
  name: string;
  role: Role;
  client: TestClient;
  identity: Identity | null;
  /** We hold it open; the server must not have dropped it. */
  open: boolean;
  /** Mirror of the server's per-socket command bucket (30 burst, 10/s); spent on every frame the fuzz sends. */
  commands: Budget;
  /** Mirror of the server's per-socket resync bucket (10 burst, 2/s), on top of `commands`. */
  resyncs: Budget;
  /** Projector: the participantCount its `presence` record last held. */
  heardCount: number | null;
  /** Student: the nickname its own `name` record last held. */
  heardNickname: string | null;
  checkedTallies: number;
  checkedPatches: number;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const short = (value: unknown) => {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 160 ? `${text.slice(0, 160)}…(${text.length} chars)` : text;
};
/** What the server receives: the payload after a JSON round trip (undefined becomes null in an args array). */
export const onTheWire = (payload: unknown): unknown => JSON.parse(JSON.stringify([payload]))[0];

/** The snapshot a client following the protocol keeps: the highest rev, the latest of equals. */
export function current(tab: Tab): AnySnapshot {
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
export function shownCounts(tab: Tab): Record<string, number> | null {
  const snap = current(tab);
  if (!snap.poll) return null;
  const tally = latestTally(tab);
  if (tally && tally.rev > snap.rev && tally.pollId === snap.poll.id && tally.round === snap.poll.round) return tally.counts;
  return snap.poll.results?.counts ?? null;
}

/** The roster the server would send a teacher's socket now (the `r:` records of the teacher's whole projection). */
export function rosterOfRoom(room: Room): RosterRow[] {
  const whole = room.projection("host", null)[0];
  return Object.entries(whole.put ?? {}).flatMap(([key, row]) => (key.startsWith("r:") ? [row as RosterRow] : []));
}

/** Presence (who is connected) is not part of the durable state; views compare without it. */
export function withoutPresence(snapshot: AnySnapshot): Record<string, unknown> {
  if (snapshot.audience === "host") {
    const { participantCount: _count, projectorCount: _views, ...rest } = snapshot;
    return rest;
  }
  const { participantCount: _count, ...rest } = snapshot;
  return rest;
}

/** Before a publish barrier: rev and the vote-driven parts (which travel as tallies) may lag. */
export function withoutVoteDrift(snapshot: AnySnapshot, state: SessionState, keepPresence: boolean): Record<string, unknown> {
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
