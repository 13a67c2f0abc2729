import { randomBytes } from "node:crypto";
import type { ProtocolError } from "../../lib/protocol";
import type { PatchOf, StreamName, StreamRecords } from "../../lib/session/projection";

/**
 * A copy this many records behind (or half its stream, whichever is more) gets the whole projection instead of
 * the changes: a whole is then about as large, and says it more simply.
 */
const CHANGES_WORTH_SENDING = 64;

/** Where a room's patches go. The socket.io adapter implements it (server/edge/fanout.ts); tests can record it. */
export interface RoomOutbox {
  /** The class: every student's and projector's socket, one encode. */
  toClass: (patch: PatchOf<"public">) => void;
  /** Projector sockets only (the class's presence: students do not show it). */
  toProjectors: (patch: PatchOf<"public">) => void;
  /** The teacher's sockets. */
  toHosts: (patch: PatchOf<"host">) => void;
  /** One participant's sockets (every tab of that browser), but `except` (the socket whose ack already says it). */
  toParticipant: (participantId: string, patch: PatchOf<"me">, except?: string) => void;
  /**
   * A running count: the teachers' at once, the class's a slice at a time
   * in a large class (a newer count takes over the slices the older one has
   * not reached; the next patch to the whole class stops it).
   */
  tally: (forHosts: PatchOf<"host">, forClass: PatchOf<"public">) => void;
  /**
   * A patch for the class is on its way (sent once its event is written):
   * what is left of a count still going out to a large class is stale, stop
   * it now rather than after the write.
   */
  tallySuperseded: () => void;
  /** Disconnect a participant's sockets with a reason. */
  kick: (participantId: string, error: ProtocolError) => void;
  /** Disconnect every projector view with a reason. */
  kickProjectors: (error: ProtocolError) => void;
}

/** An outbox that sends nothing: for rooms nobody listens to (unit tests, tools). */
export const silentRoomOutbox: RoomOutbox = {
  toClass: () => undefined,
  toProjectors: () => undefined,
  toHosts: () => undefined,
  toParticipant: () => undefined,
  tally: () => undefined,
  tallySuperseded: () => undefined,
  kick: () => undefined,
  kickProjectors: () => undefined,
};

/** A change to one stream's records: whole records put, keys deleted. */
export interface Change<S extends StreamName> {
  put?: Partial<StreamRecords[S]>;
  del?: (keyof StreamRecords[S] & string)[];
}

/** The whole projections, computed from the room's state when a stream (re)starts or a socket joins. */
export interface Projections {
  public: () => Partial<StreamRecords["public"]>;
  host: () => Partial<StreamRecords["host"]>;
  me: (participantId: string) => Partial<StreamRecords["me"]>;
}

/**
 * One room instance's clock and the patches numbered on it. Each stream (the
 * class's, the teacher's, each participant's own) remembers the clock of its
 * last ordered patch, which the next one is made `from`. The first patch a
 * stream sends in this instance goes out whole, so sockets that still hold
 * the previous instance's records (a cluster takeover keeps them connected)
 * move over without asking.
 */
export class RoomSync {
  /** Names this room instance: a client holding another instance's records takes the whole projection. */
  readonly instance = randomBytes(9).toString("base64url");
  private clock = 0;
  private readonly last = new Map<string, number>();
  /**
   * Per stream, the clock each record was last put or deleted at by a patch of this instance (deletions
   * included, so a resync can say a record left). Bounded by the records a stream ever held: the roster,
   * the questions, a participant's own few.
   */
  private readonly written = new Map<string, Map<string, number>>();

  constructor(
    private readonly outbox: RoomOutbox,
    private readonly projections: Projections,
  ) {}

  /**
   * The whole of a stream for one socket (join, resync): its records as of
   * the clock now (`to`); the stream's next ordered patch follows on from
   * `from`, its last one. A patch still on its way that is older than this is
   * dropped by the client as stale.
   */
  whole<S extends StreamName>(stream: S, participantId?: string): PatchOf<S> {
    const from = this.last.get(this.streamKey(stream, participantId)) ?? 0;
    return { stream, instance: this.instance, from, to: Math.max(from, this.clock), whole: true, put: this.project(stream, participantId) };
  }

  /**
   * What changed in a stream since a client's copy (`held`: the instance and
   * clock it holds), as patches the client applies by the one rule: an
   * ordered patch from its clock to the stream's last ordered patch with
   * every record written since, as it is now, and a volatile one after it
   * with the records written by volatile patches since (running counts,
   * presence). Empty when nothing changed. Null when only the whole
   * projection will do: another instance, a clock this instance never sent,
   * or so much changed that the whole is as cheap (a copy far behind).
   */
  changesSince<S extends StreamName>(stream: S, held: { instance: string; clock: number }, participantId?: string): PatchOf<S>[] | null {
    if (held.instance !== this.instance) return null;
    const key = this.streamKey(stream, participantId);
    const last = this.last.get(key) ?? 0;
    if (held.clock > last) return null;
    const changed: [record: string, at: number][] = [];
    for (const entry of this.written.get(key) ?? []) if (entry[1] > held.clock) changed.push(entry);
    if (changed.length === 0) return [];
    const records: Record<string, unknown> = this.project(stream, participantId);
    if (changed.length > Math.max(CHANGES_WORTH_SENDING, Object.keys(records).length / 2)) return null;
    const ordered: { put?: Record<string, unknown>; del?: string[] } = {};
    const volatile: typeof ordered = {};
    for (const [record, at] of changed) {
      const change = at > last ? volatile : ordered;
      // The record as it is now: any patch still on its way is older, and the copy drops it.
      if (Object.hasOwn(records, record)) (change.put ??= {})[record] = records[record];
      else (change.del ??= []).push(record);
    }
    const patches: {
      stream: S;
      instance: string;
      from: number;
      to: number;
      volatile?: true;
      put?: Record<string, unknown>;
      del?: string[];
    }[] = [];
    if (ordered.put || ordered.del) patches.push({ stream, instance: this.instance, from: held.clock, to: last, ...ordered });
    if (volatile.put || volatile.del)
      patches.push({ stream, instance: this.instance, from: last, to: this.clock, volatile: true, ...volatile });
    // The records are this stream's own projection's, and the keys were written by this stream's patches.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
    return patches as PatchOf<S>[];
  }

  toClass(change: Change<"public">, volatile = false): void {
    const patch = this.next("public", change, volatile);
    if (patch) this.outbox.toClass(patch);
  }

  /** Presence for the projectors. Before the class's stream has started, it starts it (whole, to the class). */
  toProjectors(change: Change<"public">): void {
    const patch = this.next("public", change, true);
    if (!patch) return;
    if (patch.whole) this.outbox.toClass(patch);
    else this.outbox.toProjectors(patch);
  }

  toHosts(change: Change<"host">, volatile = false): void {
    const patch = this.next("host", change, volatile);
    if (patch) this.outbox.toHosts(patch);
  }

  toParticipant(participantId: string, change: Change<"me">, options: { volatile?: boolean; except?: string } = {}): void {
    const patch = this.next("me", change, options.volatile ?? false, participantId);
    if (patch) this.outbox.toParticipant(participantId, patch, patch.whole ? undefined : options.except);
  }

  /** A running count to the teachers and the class (volatile: a newer one replaces it). */
  tally(forHosts: Change<"host">, forClass: Change<"public">): void {
    const host = this.next("host", forHosts, true);
    const pub = this.next("public", forClass, true);
    if (host && pub && !host.whole && !pub.whole) return this.outbox.tally(host, pub);
    if (host) this.outbox.toHosts(host);
    if (pub) this.outbox.toClass(pub);
  }

  private streamKey(stream: StreamName, participantId?: string): string {
    return stream === "me" ? `me:${participantId ?? ""}` : stream;
  }

  private project<S extends StreamName>(stream: S, participantId?: string): Partial<StreamRecords[S]> {
    // Each branch returns its own stream's records; the generic cannot follow the narrowing.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
    return (
      stream === "me" ? this.projections.me(participantId ?? "") : this.projections[stream === "host" ? "host" : "public"]()
    ) as Partial<StreamRecords[S]>;
  }

  /** The next patch of a stream, or null when nothing changed; whole when the stream has not started in this instance. */
  private next<S extends StreamName>(stream: S, change: Change<S>, volatile: boolean, participantId?: string): PatchOf<S> | null {
    const key = this.streamKey(stream, participantId);
    const from = this.last.get(key);
    if (from === undefined) {
      const to = ++this.clock;
      this.last.set(key, to);
      const put = this.project(stream, participantId);
      this.written.set(key, new Map(Object.keys(put).map((record): [string, number] => [record, to])));
      return { stream, instance: this.instance, from: to, to, whole: true, put };
    }
    const empty = (!change.put || Object.keys(change.put).length === 0) && (!change.del || change.del.length === 0);
    if (empty) return null;
    const to = ++this.clock;
    if (!volatile) this.last.set(key, to);
    let written = this.written.get(key);
    if (!written) this.written.set(key, (written = new Map<string, number>()));
    for (const record of Object.keys(change.put ?? {})) written.set(record, to);
    for (const record of change.del ?? []) written.set(record, to);
    const patch: PatchOf<S> = { stream, instance: this.instance, from, to };
    if (volatile) patch.volatile = true;
    if (change.put && Object.keys(change.put).length > 0) patch.put = change.put;
    if (change.del && change.del.length > 0) patch.del = change.del;
    return patch;
  }
}
