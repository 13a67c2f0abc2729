import { randomBytes } from "node:crypto";
import type { ProtocolError } from "../../lib/protocol";
import type { PatchOf, StreamName, StreamRecords } from "../../lib/session/projection";

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
      return { stream, instance: this.instance, from: to, to, whole: true, put: this.project(stream, participantId) };
    }
    const empty = (!change.put || Object.keys(change.put).length === 0) && (!change.del || change.del.length === 0);
    if (empty) return null;
    const to = ++this.clock;
    if (!volatile) this.last.set(key, to);
    const patch: PatchOf<S> = { stream, instance: this.instance, from, to };
    if (volatile) patch.volatile = true;
    if (change.put && Object.keys(change.put).length > 0) patch.put = change.put;
    if (change.del && change.del.length > 0) patch.del = change.del;
    return patch;
  }
}
