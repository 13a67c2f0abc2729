import type { SessionEvent } from "../../../lib/session";
import type { PresenceRecord } from "../../../lib/session/projection";
import { nicknameOf } from "../../../lib/protocol/replica";
import type { Room } from "../../../server/rooms/room";
import { connectClient, type TestClient, type TestServer } from "../harness";
import { Budget, current, sleep, type Identity, type Role, type Rng, type Tab } from "./wire";

export const CONVERGE_TIMEOUT_MS = 3_000;
/**
 * The server slows an address after 20 failed handshakes (refill 0.5/s), and
 * every socket here comes from 127.0.0.1; more than a few per seed would lock
 * the legitimate students out of later seeds.
 */
export const COUNTED_HANDSHAKE_FAILURES_PER_SEED = 3;

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
      commands: new Budget(30, 10),
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
    if (error !== undefined) {
      client.close();
      return { error: typeof error === "string" ? error : error.code };
    }
    await client.waitFor((c) => c.snapshots.length > 0 && c.welcome !== null);
    return { client };
  };

  readonly closeTab = (tab: Tab): void => {
    tab.open = false;
    tab.client.close();
  };

  /** A teacher tab with rate budget left; round-robin, so the choice does not consume randomness. */
  readonly hostTab = async (): Promise<Tab> => {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const hosts = this.tabs.filter((t) => t.role === "host");
      for (let k = 0; k < hosts.length; k++) {
        const tab = hosts[(this.hostTurn + k) % hosts.length];
        if (tab.open && tab.commands.available()) {
          this.hostTurn = (this.hostTurn + k + 1) % hosts.length;
          return tab;
        }
      }
      if (Date.now() > deadline) throw new Error(`${this.where()}: no teacher tab has rate budget`);
      await sleep(20);
    }
  };
}
