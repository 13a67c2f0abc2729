import type { Ack } from "../../lib/protocol";
import { errorMessage } from "../../lib/errors";
import { UnavailableError } from "../rooms/gateway";
import type { RoomRegistry } from "../rooms/registry";
import type { Room } from "../rooms/room";
import { log } from "../logger";
import { asStreamEntries, redisCommand, type Fence, type RedisClient, type RedisSessionStore } from "../store/redis";
import { DROP, RESTRICT, SYNC, dropArgs, restrictArgs, syncArgs, type Restriction } from "../store/redisGate";
import { K } from "../store/redisKeys";
import { LostOwnershipError } from "../store/types";
import type { Call, Method, Results } from "./rpc";
import { RETRY_PAUSE_MS } from "./timing";
import { NO_GATE, castVote, restrictionOf } from "./voteIntake";

/**
 * The owner's half of scale-out votes (./voteIntake.ts is the other): the
 * votes other nodes took into a session's intake are folded into its room,
 * in the intake's order, as if each had been sent to the owner, and logged
 * like any event (the script that appends a folded vote's event deletes its
 * intake entry).
 *
 * When: continuously (one blocking read for every room this node owns), and
 * at once before what must follow them. Before the owner serves a session for
 * the first time (a new room instance: created, taken over, reloaded), it
 * folds the whole intake and writes the gate from its state (SYNC). Before a
 * command that shuts votes out, it shuts them out of the gate and folds what
 * came before (RESTRICT), so a closed poll's counts hold every vote that was
 * acknowledged. Before a student's other commands and resyncs it folds what
 * is there, so that student's vote comes before their next command in the log.
 */

/** One blocking read waits at most this long, so rooms this node has just started owning join the next read. */
const FOLD_BLOCK_MS = 200;
/** With nothing to read for, the loop looks again after this. */
const FOLD_IDLE_MS = 200;
/** Intake entries read per session per read. */
const FOLD_BATCH = 2000;
/** Tries to write the gate while votes keep arriving between the fold and the write. */
const SYNC_TRIES = 5;

export interface VoteFoldOptions {
  /** Shared with the store's writes, so a drop is ordered with them. */
  client: RedisClient;
  /** A connection of the fold's own: its blocking read would hold up every other command. */
  reader: RedisClient;
  store: RedisSessionStore;
  rooms: RoomRegistry;
  /** The claim this node may write a session's events under now, or null. */
  fenceOf: (sessionId: string) => Fence | null;
}

export class VoteFold {
  /** Per room instance: the newest intake entry folded into it. */
  private readonly cursors = new WeakMap<Room, string>();
  private readonly preparing = new WeakMap<Room, Promise<void>>();
  /** Room instances whose intake was folded and whose gate was written from their state. */
  private readonly prepared = new WeakSet<Room>();
  /** Per room instance: folds before a command, one after another. */
  private readonly drains = new WeakMap<Room, Promise<void>>();
  private running = false;
  private loopDone: Promise<void> = Promise.resolve();

  constructor(private readonly o: VoteFoldOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loopDone;
  }

  /**
   * Runs a call as the session's owner (server/scaleout/routing.ts): the room
   * ready first, the intake folded or the gate shut as the call needs, a vote
   * taken through the gate like any other.
   */
  async around(sessionId: string, call: Call, run: () => Promise<Results[Method]>): Promise<Results[Method]> {
    const room = await this.ready(sessionId);
    if (!room || call.method === "join") return run();
    if (call.method === "view") {
      await this.drain(sessionId, room);
      return run();
    }
    const [member, command] = call.args;
    if (command.event === "poll:vote") {
      const cast = await castVote(this.o.client, member, command.payload);
      if (cast === NO_GATE) throw new UnavailableError("UNAVAILABLE", "The class's poll is being set up. Try again.");
      return cast;
    }
    const restriction = restrictionOf(command);
    if (!restriction) {
      if (member.participantId) await this.drain(sessionId, room);
      return run();
    }
    await this.restrict(sessionId, room, restriction);
    // A refused (or failed) command shut the gate for nothing: it is written again from the state before long.
    try {
      const result = await run();
      if (refused(result)) this.prepared.delete(room);
      return result;
    } catch (err) {
      this.prepared.delete(room);
      throw err;
    }
  }

  /** The session's room, with the intake folded into it and the gate written from its state (once per room instance). */
  async ready(sessionId: string): Promise<Room | null> {
    const room = await this.o.rooms.load(sessionId);
    if (!room || this.prepared.has(room)) return room;
    let preparing = this.preparing.get(room);
    if (!preparing) {
      preparing = this.prepare(sessionId, room).finally(() => this.preparing.delete(room));
      this.preparing.set(room, preparing);
    }
    await preparing;
    return room;
  }

  private async prepare(sessionId: string, room: Room): Promise<void> {
    for (let i = 0; i < SYNC_TRIES; i++) {
      await this.drainNow(sessionId, room);
      const args = syncArgs(sessionId, this.fence(sessionId), this.after(room), room.snapshotState);
      if (Number(await redisCommand(this.o.client, ["EVAL", SYNC, 6, ...args])) === 1) {
        this.prepared.add(room);
        return;
      }
    }
    throw new UnavailableError("UNAVAILABLE", "The class's votes are still being counted. Try again.");
  }

  /** Folds what the intake holds now, after any fold already asked for. */
  private drain(sessionId: string, room: Room): Promise<void> {
    const next = (this.drains.get(room) ?? Promise.resolve()).catch(() => undefined).then(() => this.drainNow(sessionId, room));
    this.drains.set(room, next);
    return next;
  }

  private async drainNow(sessionId: string, room: Room): Promise<void> {
    const reply = await redisCommand(this.o.client, ["XRANGE", K.intake(sessionId), this.after(room), "+"]);
    await this.fold(sessionId, room, asStreamEntries(reply));
  }

  /** Shuts the gate as the command will, then folds every vote it let in before. */
  private async restrict(sessionId: string, room: Room, restriction: Restriction): Promise<void> {
    const args = restrictArgs(sessionId, this.fence(sessionId), restriction, this.after(room));
    const reply = await redisCommand(this.o.client, ["EVAL", RESTRICT, 6, ...args]);
    await this.fold(sessionId, room, asStreamEntries(reply));
  }

  /** Applies intake entries to the room in order, each once (the blocking read and a drain may both bring it). */
  private async fold(sessionId: string, room: Room, entries: [string, string[]][]): Promise<void> {
    const unused: string[] = [];
    for (const [id, fields] of entries) {
      const cursor = this.cursors.get(room);
      if (cursor !== undefined && !streamIdAfter(id, cursor)) continue;
      this.cursors.set(room, id);
      const f = fieldsOf(fields);
      let ack: Ack<unknown> | undefined;
      const taken = this.o.store.foldIntake(sessionId, id, () => {
        ack = room.handle({ event: "poll:vote", payload: { pollId: f.q ?? "", optionId: f.o ?? "" } }, { participantId: f.p ?? null });
      });
      if (taken) continue;
      unused.push(id);
      // The gate holds the rules the room does: a vote it took and the room refused means they disagreed.
      if (ack && !ack.ok) log.error("a vote the gate took was refused by the session's rules", { sessionId, code: ack.error.code });
    }
    if (unused.length) await redisCommand(this.o.client, ["EVAL", DROP, 6, ...dropArgs(sessionId, this.fence(sessionId), unused)]);
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const targets = new Map<string, Room>();
      for (const room of this.o.rooms.all()) {
        if (room.isEnded || !this.o.fenceOf(room.id)) continue;
        if (this.prepared.has(room)) targets.set(K.intake(room.id), room);
        // A room no call has reached yet (reloaded, adopted): its votes must not wait for one.
        else
          void this.ready(room.id).catch((err: unknown) => log.debug("could not prepare a session's votes", { error: errorMessage(err) }));
      }
      if (targets.size === 0) {
        await sleep(FOLD_IDLE_MS);
        continue;
      }
      const keys = [...targets.keys()];
      const from = [...targets.values()].map((room) => this.cursors.get(room) ?? "0-0");
      let reply: unknown;
      try {
        reply = await this.o.reader.sendCommand(
          ["XREAD", "COUNT", String(FOLD_BATCH), "BLOCK", String(FOLD_BLOCK_MS), "STREAMS", ...keys, ...from],
          {
            timeout: 0,
          },
        );
      } catch (err) {
        log.debug("could not read the votes' intake", { error: errorMessage(err) });
        await sleep(RETRY_PAUSE_MS);
        continue;
      }
      if (!Array.isArray(reply)) continue;
      for (const stream of reply) {
        if (!Array.isArray(stream) || typeof stream[0] !== "string") continue;
        const room = targets.get(stream[0]);
        if (!room || this.o.rooms.get(room.id) !== room || !this.o.fenceOf(room.id)) continue;
        await this.fold(room.id, room, asStreamEntries(stream[1])).catch((err: unknown) =>
          log.warn("could not fold a session's votes", { sessionId: room.id, error: errorMessage(err) }),
        );
      }
    }
  }

  /** The exclusive start of what is not yet folded into the room. */
  private after(room: Room): string {
    const cursor = this.cursors.get(room);
    return cursor ? `(${cursor}` : "-";
  }

  private fence(sessionId: string): Fence {
    const fence = this.o.fenceOf(sessionId);
    // Not sure this node still owns the session: the routing confirms its claim and runs the call again.
    if (!fence) throw new LostOwnershipError(false);
    return fence;
  }
}

/** Whether stream entry id `a` (`ms-seq`) comes after `b` (called per vote folded: no arrays). */
export function streamIdAfter(a: string, b: string): boolean {
  const da = a.indexOf("-");
  const db = b.indexOf("-");
  const am = Number(a.slice(0, da));
  const bm = Number(b.slice(0, db));
  return am > bm || (am === bm && Number(a.slice(da + 1)) > Number(b.slice(db + 1)));
}

function refused(result: unknown): boolean {
  return typeof result === "object" && result !== null && "ok" in result && result.ok === false;
}

function fieldsOf(flat: string[]): Record<string, string | undefined> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]] = flat[i + 1];
  return out;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
