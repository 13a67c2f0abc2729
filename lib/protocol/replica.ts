import type { Patch, PresenceRecord, PublicTally, StreamName } from "../session/projection";
import type { MyVote, TallyUpdate } from "../session/views";
import type { AnySnapshot, HeldStreams, ResyncRequest } from "./wire";
import { newerVote } from "../session/views";
import { isRecord } from "../guards";
import type { RosterRow } from "../session/roster";
import type { ClassQuestion, HostQuestion } from "../session/questions";

/**
 * A client's copy of the records its socket's audiences hold (the class's or
 * the teacher's, and a student's own), kept by one rule for every patch:
 *
 * - a `whole` patch replaces the stream's records (they are as of clock
 *   `to`; ordered patches go on from `from`);
 * - a patch of another room instance, or made from a state this copy has not
 *   reached (`from` ahead of the copy's clock), is a gap: ask for the whole
 *   projection again (`session:sync`);
 * - an ordered patch no newer than the copy's clock is stale: drop it;
 * - otherwise each record it carries replaces the copy's unless the copy's is
 *   newer (written by a later patch): a running count or a presence figure
 *   may overtake another on its way, and the newest stays. An ordered patch
 *   moves the copy's clock to `to`; a volatile one (which may be skipped)
 *   does not.
 *
 * Pure data in, and what changed out: the browser's store, the test client
 * and the bench all keep their copy with it.
 */

export type PatchOutcome = "applied" | "stale" | "gap";

interface StreamCopy {
  instance: string;
  /** The `from` the next ordered patch must be made from. */
  clock: number;
  /** The highest `to` applied: a whole patch of this instance no newer than it was sent before the copy was taken. */
  seen: number;
  /** Single records by name. */
  singles: Map<string, unknown>;
  /** Collections by name ("q", "r", ...), each keyed by id, in the order first put. */
  collections: Map<string, Map<string, unknown>>;
  /** The clock each record (or its deletion) is as of. */
  at: Map<string, number>;
}

function split(key: string): [collection: string, id: string] | null {
  const at = key.indexOf(":");
  return at < 0 ? null : [key.slice(0, at), key.slice(at + 1)];
}

/** The records of a socket's streams, applied by the rule above; reports which parts changed. */
export class Replica {
  private readonly streams = new Map<StreamName, StreamCopy>();
  /** Parts changed since the last `takeChanges` ("stream/name" or "stream/collection:"). */
  private changed = new Set<string>();

  apply(patch: Patch): PatchOutcome {
    const held = this.streams.get(patch.stream);
    if (patch.whole) {
      // A room instance's first patch, queued before this socket's own whole copy was taken, is older than it.
      if (held && held.instance === patch.instance && patch.to <= held.seen) return "stale";
      const copy: StreamCopy = {
        instance: patch.instance,
        clock: patch.from,
        seen: patch.to,
        singles: new Map(),
        collections: new Map(),
        at: new Map(),
      };
      this.streams.set(patch.stream, copy);
      // Everything this stream held may have gone.
      if (held) {
        for (const name of held.singles.keys()) this.changed.add(`${patch.stream}/${name}`);
        for (const name of held.collections.keys()) this.changed.add(`${patch.stream}/${name}:`);
      }
      this.write(patch.stream, copy, patch.to, patch.put, undefined);
      return "applied";
    }
    if (!held || held.instance !== patch.instance || patch.from > held.clock) return "gap";
    if (!patch.volatile) {
      if (patch.to <= held.clock) return "stale";
      if (patch.from !== held.clock) return "gap";
      held.clock = patch.to;
    }
    held.seen = Math.max(held.seen, patch.to);
    return this.write(patch.stream, held, patch.to, patch.put, patch.del) ? "applied" : "stale";
  }

  /**
   * A record this client knows before any patch says it: its own vote's
   * receipt, its own upvote or question (the ack). Kept until a patch replaces it.
   */
  putOwn(stream: StreamName, key: string, value: unknown): void {
    const held = this.streams.get(stream);
    if (!held) return;
    // Written whatever the copy holds, as of the copy's newest patch: any patch sent after the ack replaces it.
    this.write(stream, held, held.seen, value === undefined ? undefined : { [key]: value }, value === undefined ? [key] : undefined, true);
  }

  has(stream: StreamName): boolean {
    return this.streams.has(stream);
  }

  /** What this copy holds of each stream (its room instance and clock): a resync asks only for what changed since. */
  held(): HeldStreams {
    const have: HeldStreams = {};
    for (const [stream, copy] of this.streams) have[stream] = { instance: copy.instance, clock: copy.clock };
    return have;
  }

  /**
   * A single record, as the type its key has in the stream's records (lib/session/projection.ts). Records are
   * put only from the server's patches (typed by the event map) and this client's own acks.
   */
  single<T>(stream: StreamName, name: string): T | undefined {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
    return this.streams.get(stream)?.singles.get(name) as T | undefined;
  }

  /** The clock a record is as of (-1 when the copy has never held it). */
  recordAt(stream: StreamName, key: string): number {
    return this.streams.get(stream)?.at.get(key) ?? -1;
  }

  /** A collection's records by id, in the order first put (typed as `single` is). */
  collection<T>(stream: StreamName, name: string): ReadonlyMap<string, T> {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
    return (this.streams.get(stream)?.collections.get(name) as Map<string, T> | undefined) ?? new Map<string, T>();
  }

  /** The parts changed since the last call. */
  takeChanges(): ReadonlySet<string> {
    const changed = this.changed;
    this.changed = new Set();
    return changed;
  }

  /** Writes the records newer than the copy's; whether any was. */
  private write(
    stream: StreamName,
    copy: StreamCopy,
    at: number,
    put: Record<string, unknown> | undefined,
    del: readonly string[] | undefined,
    own = false,
  ): boolean {
    let wrote = false;
    const newer = (key: string) => own || (copy.at.get(key) ?? -1) < at;
    for (const key of del ?? []) {
      if (!newer(key)) continue;
      copy.at.set(key, Math.max(at, copy.at.get(key) ?? -1));
      wrote = true;
      const parts = split(key);
      if (parts) {
        if (copy.collections.get(parts[0])?.delete(parts[1])) this.changed.add(`${stream}/${parts[0]}:`);
      } else if (copy.singles.delete(key)) this.changed.add(`${stream}/${key}`);
    }
    for (const [key, value] of Object.entries(put ?? {})) {
      if (value === undefined || !newer(key)) continue;
      // Two tabs voting at once get each other's echo and their own receipt in either order: the later vote stays.
      if (key === "vote" && !newerVote(asMyVote(copy.singles.get(key)), asMyVote(value))) continue;
      copy.at.set(key, Math.max(at, copy.at.get(key) ?? -1));
      wrote = true;
      const parts = split(key);
      if (parts) {
        let members = copy.collections.get(parts[0]);
        if (!members) copy.collections.set(parts[0], (members = new Map<string, unknown>()));
        members.set(parts[1], value);
        this.changed.add(`${stream}/${parts[0]}:`);
      } else {
        copy.singles.set(key, value);
        this.changed.add(`${stream}/${key}`);
      }
    }
    return wrote;
  }
}

/** How a resync was answered: done (what it sent came before the answer), or refused, with when to ask again. */
export type ResyncAnswer = { ok: true } | { ok: false; retryAfterMs?: number };

/** The follower's clock and dice (the browser's by default; tests may pass their own). */
export interface ResyncTimers {
  setTimeout(run: () => void, ms: number): unknown;
  random(): number;
}
const browserTimers: ResyncTimers = { setTimeout: (run, ms) => setTimeout(run, ms), random: () => Math.random() };

/**
 * A socket's patches kept by the rule: each one applied to the replica, and
 * on a gap one resync asked for (`resync`, which sends `session:sync`) until
 * it is answered or a whole patch arrives. The request says what the copy
 * holds (`have`), so the server sends only what changed since; if the copy
 * still has a gap right after such an answer, the next request asks for
 * everything. A refusal that says when to ask again (RESYNC_LIMITED) is
 * retried then, plus up to half as long again at random, so the screens
 * behind one address do not all ask at once. The browser, the test clients
 * and the bench follow their sockets with it.
 */
export class PatchFollower {
  private resyncing = false;
  /** A resync by changes was just answered: a gap now means it did not close the gap, so ask for everything. */
  private justResynced = false;
  private wholeNext = false;
  /** Gaps found (each asked for a resync, unless one was on its way). */
  gaps = 0;
  /** Resyncs refused with a time to ask again (each asked again then). */
  deferred = 0;

  constructor(
    readonly replica: Replica,
    /** Sends `session:sync` with `request`; calls `answered` with its acknowledgement (a refusal also when none comes). */
    private readonly resync: (request: ResyncRequest, answered: (answer: ResyncAnswer) => void) => void,
    private readonly timers: ResyncTimers = browserTimers,
  ) {}

  receive(patch: Patch): PatchOutcome {
    if (patch.whole) this.resyncing = false;
    const outcome = this.replica.apply(patch);
    if (outcome === "gap") {
      if (this.justResynced) this.wholeNext = true;
      if (!this.resyncing) {
        this.gaps += 1;
        this.ask();
      }
    }
    this.justResynced = false;
    return outcome;
  }

  private ask(): void {
    this.resyncing = true;
    const whole = this.wholeNext;
    this.wholeNext = false;
    const request: ResyncRequest = whole ? {} : { have: this.replica.held() };
    this.resync(request, (answer) => {
      if (!this.resyncing) return; // a whole patch came meanwhile
      if (answer.ok) {
        this.resyncing = false;
        this.justResynced = !whole;
        return;
      }
      if (answer.retryAfterMs === undefined) {
        this.resyncing = false;
        this.wholeNext = whole;
        return;
      }
      this.deferred += 1;
      this.timers.setTimeout(
        () => {
          if (!this.resyncing) return;
          this.wholeNext = whole;
          this.ask();
        },
        answer.retryAfterMs * (1 + this.timers.random() / 2),
      );
    });
  }
}

/** A vote record (a patch's, or a vote's ack), or null for anything else. */
export function asMyVote(value: unknown): MyVote | null {
  if (!isRecord(value)) return null;
  const { pollId, round, optionId, rev } = value;
  return typeof pollId === "string" &&
    typeof round === "number" &&
    (optionId === null || typeof optionId === "string") &&
    typeof rev === "number"
    ? { pollId, round, optionId, rev }
    : null;
}

// ---------------------------------------------------------------------------
// What a screen shows, read from the records

/** The questions a view may see, in the order asked; a student's own marked. */
export type QuestionsState =
  { audience: "public"; questions: ClassQuestion[]; mine: string[]; myUpvotes: string[] } | { audience: "host"; questions: HostQuestion[] };

/** The session as the screens read it: the session record with the newest presence and vote count folded in. */
export function snapshotOf(replica: Replica): AnySnapshot | null {
  const stream = replica.has("host") ? "host" : "public";
  const session = replica.single<AnySnapshot>(stream, "session");
  if (!session) return null;
  const presence = replica.single<PresenceRecord>(stream, "presence");
  const tally = replica.single<PublicTally>(stream, "tally");
  let snapshot: AnySnapshot = session;
  // The newer of the two says how many are connected (students get presence only with the session).
  if (presence && replica.recordAt(stream, "presence") > replica.recordAt(stream, "session")) {
    snapshot =
      snapshot.audience === "host"
        ? { ...snapshot, participantCount: presence.participantCount, projectorCount: presence.projectorCount ?? snapshot.projectorCount }
        : { ...snapshot, participantCount: presence.participantCount };
  }
  const poll = snapshot.poll;
  if (poll && tally && tally.pollId === poll.id && tally.round === poll.round && poll.status === "open" && tally.rev >= snapshot.rev) {
    snapshot =
      snapshot.audience === "host"
        ? { ...snapshot, poll: { ...snapshot.poll!, voted: tally.total } }
        : { ...snapshot, poll: { ...snapshot.poll!, voted: tally.total } };
  }
  return snapshot;
}

/** The running counts this view may see (the teacher's always, the class's while results are shown). */
export function tallyOf(replica: Replica): TallyUpdate | null {
  const tally = replica.single<PublicTally | TallyUpdate>(replica.has("host") ? "host" : "public", "tally");
  if (!tally?.counts) return null;
  return { pollId: tally.pollId, round: tally.round, counts: tally.counts, total: tally.total, rev: tally.rev };
}

export function myVoteOf(replica: Replica): MyVote | null {
  return replica.single<MyVote>("me", "vote") ?? null;
}

export function nicknameOf(replica: Replica): string | undefined {
  return replica.single<{ nickname: string }>("me", "name")?.nickname;
}

export function lookingBackOf(replica: Replica): number {
  return replica.single<{ count: number }>("host", "lookback")?.count ?? 0;
}

/** The teacher's roster: every student by id (a copy, so a screen can hold it). */
export function rosterOf(replica: Replica): ReadonlyMap<string, RosterRow> | null {
  return replica.has("host") ? new Map(replica.collection<RosterRow>("host", "r")) : null;
}

export function questionsOf(replica: Replica): QuestionsState | null {
  if (replica.has("host")) return { audience: "host", questions: [...replica.collection<HostQuestion>("host", "q").values()] };
  if (!replica.has("public")) return null;
  const classQuestions = replica.collection<ClassQuestion>("public", "q");
  const own = replica.collection<ClassQuestion>("me", "q");
  const questions = [...classQuestions.values()];
  // A student's own question the class does not see yet, in the order asked.
  for (const [id, q] of own) if (!classQuestions.has(id)) questions.push(q);
  questions.sort((a, b) => a.askedAt - b.askedAt);
  return {
    audience: "public",
    questions,
    mine: [...replica.collection<true>("me", "m").keys()],
    myUpvotes: [...replica.collection<true>("me", "u").keys()],
  };
}
