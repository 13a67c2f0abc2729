import type { PresenceFigure } from "../rooms/registry";
import { log } from "../logger";
import { errorMessage } from "../../lib/errors";
import { asStrings, presenceKey } from "../store/redis";
import { StoreError } from "../store/types";
import { isRecord } from "../../lib/guards";

/**
 * Who is connected to each session, counted where the sockets are.
 *
 * Every node writes, per session, the students and watchers connected
 * through it to one Redis hash (`cls:pr:{sessionId}`, a field per node), when
 * that changes and every few seconds anyway. The session's owner adds the
 * fields up. Nobody waits on anybody: a node that answers nothing (frozen,
 * cut off, dead) keeps counting with its last figure for `staleMs`, during
 * which its students are either still connected to it or have reconnected
 * through another node (counted once: students are counted by id). Asking
 * every node at once instead, as socket.io's fetchSockets does, fails whole
 * when one node is silent, and the teacher's console showed 0 students.
 */

/** How soon a change of this node's sockets is written (and the owner told). */
const REPORT_MS = 250;
/** Unchanged figures are written again this often, so the owner can tell a live node from a silent one. */
const REFRESH_MS = 2_000;

const nodeKey = (id: string) => `cls:node:${id}`;
/** Nodes tell a session's owner that its count changed on this channel (every node listens). */
export const PRESENCE_CHANNEL = "cls:presence";

interface Entry extends PresenceFigure {
  /** When the node wrote it (its clock). */
  at: number;
}

export interface PresenceBoardOptions {
  nodeId: string;
  /** One Redis command (fails at once while Redis is unreachable). */
  cmd: (args: (string | number)[]) => Promise<unknown>;
  publish: (channel: string, message: string) => Promise<unknown>;
  /** The sockets connected to a session through this node. */
  local: (sessionId: string) => PresenceFigure;
  /** A silent node's last figure counts this long after it was written. */
  staleMs: number;
}

export class PresenceBoard {
  /** Sessions whose local sockets changed since they were last written. */
  private readonly dirty = new Set<string>();
  /** Sessions this node has written a figure for (to refresh, or to clear once empty). */
  private readonly reported = new Set<string>();
  /** Per session, the other nodes' last figures as read from Redis: what counts while Redis cannot be read. */
  private readonly known = new Map<string, Map<string, Entry>>();
  private timers: NodeJS.Timeout[] = [];
  private lastRefresh = 0;
  private writing = false;

  constructor(private readonly o: PresenceBoardOptions) {}

  start(): void {
    this.timers.push(setInterval(() => void this.report(), REPORT_MS));
    for (const t of this.timers) t.unref();
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
  }

  /** A socket of this session connected to or left this node. */
  touch(sessionId: string): void {
    this.dirty.add(sessionId);
  }

  /**
   * Everyone connected to the session on every node: this node's sockets as
   * they are now, the others' as last written (kept while fresh, or while
   * their node is alive). While Redis cannot be read, the figures last read.
   */
  async count(sessionId: string): Promise<PresenceFigure> {
    const now = Date.now();
    let others = this.known.get(sessionId);
    try {
      const flat = asStrings(await this.o.cmd(["HGETALL", presenceKey(sessionId)]));
      const read = new Map<string, Entry>();
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const entry = parseEntry(flat[i + 1]);
        if (flat[i] !== this.o.nodeId && entry) read.set(flat[i], entry);
      }
      const silent = [...read].filter(([, e]) => now - e.at >= this.o.staleMs).map(([node]) => node);
      if (silent.length) {
        // A node that is alive keeps its figure however long since it last wrote (it writes every few seconds;
        // a Redis restart may have delayed it); a dead one's students have reconnected elsewhere by now.
        const alive = await this.o.cmd(["MGET", ...silent.map(nodeKey)]);
        if (!Array.isArray(alive)) throw new StoreError("redis answered MGET with something other than a list");
        silent.forEach((node, i) => {
          if (alive[i] !== null) return;
          const age = now - read.get(node)!.at;
          read.delete(node);
          // Long gone: clean up.
          if (age > 10 * this.o.staleMs) void this.o.cmd(["HDEL", presenceKey(sessionId), node]).catch(() => undefined);
        });
      }
      others = read;
      this.known.set(sessionId, read);
    } catch (err) {
      // Redis is unreachable: keep the figures last read, for as long as they count.
      log.debug("presence could not be read; using the last known figures", { sessionId, error: errorMessage(err) });
      for (const [node, e] of others ?? []) if (now - e.at >= this.o.staleMs) others!.delete(node);
    }
    const own = this.o.local(sessionId);
    const participants = [...own.participants];
    const lookingBack = [...own.lookingBack];
    let { watchers, projectors } = own;
    for (const e of others?.values() ?? []) {
      participants.push(...e.participants);
      lookingBack.push(...e.lookingBack);
      watchers += e.watchers;
      projectors += e.projectors;
    }
    return { participants, lookingBack, watchers, projectors };
  }

  /** Sessions with sockets connected through this node (as last written). */
  localSessions(): string[] {
    return [...this.reported];
  }

  /** Forget what was read for a session this node no longer owns. */
  forget(sessionId: string): void {
    this.known.delete(sessionId);
  }

  /** Writes changed figures (and, every REFRESH_MS, all of them), then tells the owners. */
  private async report(): Promise<void> {
    if (this.writing) return;
    const refresh = Date.now() - this.lastRefresh >= REFRESH_MS;
    const ids = refresh ? new Set([...this.reported, ...this.dirty]) : new Set(this.dirty);
    if (ids.size === 0) return;
    this.writing = true;
    const changedHere = new Set(this.dirty);
    this.dirty.clear();
    const changed: string[] = [];
    try {
      const at = Date.now();
      await Promise.all(
        [...ids].map(async (sessionId) => {
          const figure = this.o.local(sessionId);
          try {
            if (figure.participants.length === 0 && figure.watchers === 0) {
              await this.o.cmd(["HDEL", presenceKey(sessionId), this.o.nodeId]);
              this.reported.delete(sessionId);
            } else {
              const entry: Entry = { at, ...figure };
              await this.o.cmd(["HSET", presenceKey(sessionId), this.o.nodeId, JSON.stringify(entry)]);
              // Presence is ephemeral: a session nobody touches for a day leaves nothing behind.
              await this.o.cmd(["PEXPIRE", presenceKey(sessionId), 24 * 3600_000]);
              this.reported.add(sessionId);
            }
            if (changedHere.has(sessionId)) changed.push(sessionId);
          } catch {
            // Redis is unreachable: write it when it is back.
            this.dirty.add(sessionId);
          }
        }),
      );
      if (refresh && this.dirty.size === 0) this.lastRefresh = at;
      // Whoever owns these sessions recounts (each node listens; only the owner acts).
      for (const sessionId of changed) await this.o.publish(PRESENCE_CHANNEL, sessionId).catch(() => undefined);
    } catch (err) {
      log.warn("presence could not be reported", { error: errorMessage(err) });
    } finally {
      this.writing = false;
    }
  }
}

function parseEntry(raw: string | undefined): Entry | null {
  try {
    const value: unknown = JSON.parse(raw ?? "");
    if (!isRecord(value)) return null;
    const { at, participants, watchers, projectors, lookingBack = [] } = value;
    if (typeof at !== "number" || typeof watchers !== "number" || typeof projectors !== "number") return null;
    const ids = (list: unknown): list is string[] => Array.isArray(list) && list.every((p) => typeof p === "string");
    if (!ids(participants) || !ids(lookingBack)) return null;
    return { at, participants, lookingBack, watchers, projectors };
  } catch {
    return null;
  }
}
