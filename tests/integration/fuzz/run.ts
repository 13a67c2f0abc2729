import type { SessionEvent } from "../../../lib/session";
import type { PresenceRecord } from "../../../lib/session/projection";
import { nicknameOf } from "../../../lib/protocol/replica";
import type { Room } from "../../../server/rooms/room";
import { connectClient, type TestClient, type TestServer } from "../harness";
import { FRAME_LIMITS, RATE_LIMITS } from "../../../lib/constants";
import { budgetOf, current, spendWhenAvailable, type Budget, type Identity, type Role, type Rng, type Tab } from "./wire";

export const CONVERGE_TIMEOUT_MS = 3_000;
/**
 * The server slows an address after 20 failed handshakes (refill 0.5/s), and
 * every socket here comes from 127.0.0.1; more than a few per seed would lock
 * the legitimate students out of later seeds.
 */
export const COUNTED_HANDSHAKE_FAILURES_PER_SEED = 3;

/**
 * Mirrors of the server's budgets for the one address every fuzz socket comes from (127.0.0.1): frames, and their
 * characters. One pair for the file's server, whose buckets every seed shares.
 */
const addressFrames = budgetOf(FRAME_LIMITS.perAddressFrames);
const addressChars = budgetOf(FRAME_LIMITS.perAddressBytes);

/** An action: [weight, run]; run returns false when it does not apply now. */
export type Action = [number, () => Promise<boolean>];

/**
 * One seed's run: the live room under test, the tabs held open on it, the
 * students' identities, and where the fuzz is (every failure message says
 * which seed, action and label).
 */
export class FuzzRun {
  readonly tabs: Tab[] = [];
  readonly identities: Identity[] = [];
  readonly trail: string[] = [];
  actionIndex = -1;
  label = "setup";
  lastSeq = 0;
  countedFailures = 0;
  hostTurn = 0;
  readonly stats = { actions: 0, rateLimited: 0, joins: 0, votes: 0, checkpoints: 0 };
  /** Every command's answer, in order (`tab event -> code`): what a replay of the seed must give again. */
  readonly answers: string[] = [];
  /** Mirror of the server's bucket for the session's teacher commands, every teacher tab together. */
  private readonly teacherCommands = budgetOf(RATE_LIMITS.sessionCommands);

  constructor(
    readonly seed: number,
    readonly rng: Rng,
    readonly srv: TestServer,
    readonly room: Room,
    readonly sessionId: string,
    readonly code: string,
    readonly hostKey: string,
  ) {}

  readonly where = () => `seed ${this.seed} action #${this.actionIndex} "${this.label}" (before: ${this.trail.slice(-6, -1).join(" | ")})`;
  readonly openTabs = (role?: Role) => this.tabs.filter((t) => t.open && (!role || t.role === role));
  readonly state = () => this.room.snapshotState;

  readonly durableEvents = async (): Promise<SessionEvent[]> => {
    await this.srv.store.flush();
    return await this.srv.store.loadEvents(this.sessionId);
  };

  // -------------------------------------------------------------------------
  // Tabs

  readonly addTab = (role: Role, client: TestClient, identity: Identity | null, name: string): Tab => {
    const tab: Tab = {
      name,
      role,
      client,
      identity,
      open: true,
      commands: budgetOf(RATE_LIMITS.commands),
      resyncs: budgetOf(RATE_LIMITS.resyncs),
      heardCount: null,
      heardNickname: client.welcome?.nickname ?? null,
      checkedTallies: 0,
      checkedPatches: 0,
    };
    // What the tab was told, read from its records after each patch (the test client applies them first).
    const heard = () => {
      const presence = client.replica.single<PresenceRecord>(role === "host" ? "host" : "public", "presence");
      if (presence) tab.heardCount = presence.participantCount;
      const nickname = nicknameOf(client.replica);
      if (nickname !== undefined) tab.heardNickname = nickname;
    };
    tab.heardCount = current(tab).participantCount;
    heard();
    client.socket.on("session:patch", heard);
    this.tabs.push(tab);
    return tab;
  };

  /** Connects, or returns the rejection code. */
  readonly tryConnect = async (auth: Record<string, unknown>): Promise<{ client: TestClient } | { error: string }> => {
    const client = await connectClient(this.srv.url, auth, { expectError: true });
    const error = (client as TestClient & { error?: { code: string } | string }).error;
    const outcome = error === undefined ? "ok" : typeof error === "string" ? error : error.code;
    this.answers.push(`connect ${String(auth.role)} -> ${outcome}`);
    if (error !== undefined) {
      client.close();
      return { error: outcome };
    }
    await client.waitFor((c) => c.snapshots.length > 0 && c.welcome !== null);
    return { client };
  };

  readonly closeTab = (tab: Tab): void => {
    tab.open = false;
    tab.client.close();
  };

  /**
   * The next teacher tab, in turn: the choice depends on neither randomness nor the clock (a command waits for its
   * tab's budget when it is sent, see `spend`).
   */
  readonly hostTab = async (): Promise<Tab> => {
    const hosts = this.openTabs("host");
    if (hosts.length === 0) throw new Error(`${this.where()}: no teacher tab is open`);
    const tab = hosts[this.hostTurn % hosts.length];
    this.hostTurn = (this.hostTurn + 1) % hosts.length;
    return tab;
  };

  /**
   * Waits until the server's limits allow one more frame of `event` from `tab`, then spends it on their mirrors
   * (votes: the student's vote bucket; resyncs: the socket's resync bucket; teachers: the session's bucket; every
   * frame: the socket's command bucket, the tightest per-socket limit, and the address's frames and characters). No command of the fuzz is refused for its
   * rate, so every run of a seed gets the same answers, whatever the machine's speed.
   */
  readonly spend = async (tab: Tab, event: string, payload: unknown): Promise<void> => {
    // The frame as sent (`2<ack id>["event",payload]`), a few characters over for the ack id.
    const chars = (JSON.stringify([event, payload]) ?? "").length + 12;
    const costs: [Budget, number][] = [
      [tab.commands, 1],
      [addressFrames, 1],
      [addressChars, chars],
    ];
    if (event === "poll:vote" && tab.identity) costs.push([tab.identity.votes, 1]);
    else if (event === "session:sync") costs.push([tab.resyncs, 1]);
    else if (tab.role === "host") costs.push([this.teacherCommands, 1]);
    await spendWhenAvailable(costs);
  };

  /** A new student identity, with the mirror of its vote bucket. */
  readonly identityOf = (welcome: { participantId?: string; token?: string }, nickname: string): Identity => ({
    participantId: welcome.participantId!,
    token: welcome.token!,
    nickname,
    removed: false,
    votes: budgetOf(RATE_LIMITS.votes),
  });
}
