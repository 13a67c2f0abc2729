/**
 * The names of the Redis store's keys, in one place: the session's (store),
 * the cluster's (ownership, presence) and the scale-out votes' (gate, intake).
 * Changing a key's name or meaning is a schema change: bump
 * REDIS_SCHEMA_VERSION (./redisLayout.ts).
 */

/**
 * Scale-out ownership (server/scaleout/clusterGateway.ts): the node that owns
 * a live session, and a counter bumped by every claim. A write names the
 * owner and count it was made under, and is refused once either moved on.
 */
export const ownerKey = (sessionId: string) => `cls:owner:${sessionId}`;
export const epochKey = (sessionId: string) => `cls:epoch:${sessionId}`;
/** Scale-out presence: per node, the students and watchers connected to the session through it. */
export const presenceKey = (sessionId: string) => `cls:pr:${sessionId}`;

/** Who may write a session's events: the owning node and the claim it holds (see ownerKey). */
export interface Fence {
  node: string;
  epoch: number;
}

export const K = {
  /** A hash: the session's record and its summary (the fields summaryFields names, and `peak`). */
  session: (id: string) => `cls:s:${id}`,
  code: (code: string) => `cls:code:${code}`,
  hostKey: (hash: string) => `cls:hk:${hash}`,
  /** A stream: the event log, entry id `<seq>-1`. */
  events: (id: string) => `cls:e:${id}`,
  tokens: (id: string) => `cls:t:${id}`,
  /** A hash: console id -> JSON { keyHash, accountId, createdAt }; each key hash also indexed under `hostKey`. */
  consoles: (id: string) => `cls:cons:${id}`,
  /** A sorted set: the accounts invited to drive the session, by when. */
  coteachers: (id: string) => `cls:cot:${id}`,
  /** Sorted sets per account, by the session's creation: the sessions it owns, and those it co-teaches. */
  accountOwns: (accountId: string) => `cls:acct:${accountId}:owns`,
  accountCoteaches: (accountId: string) => `cls:acct:${accountId}:cot`,
  sessions: "cls:sessions",
  schema: "cls:schema",
  live: "cls:live",
  /** The cluster's record of a session's owner node and its claim count (server/scaleout/clusterGateway.ts). */
  owner: ownerKey,
  epoch: epochKey,
  /** Who is connected to the session through each node (server/scaleout/presenceBoard.ts). */
  presence: presenceKey,
  /** Readiness writes here (server/ops/readiness.ts); it expires on its own. */
  probe: "cls:probe",
  /** Scale-out votes (./redisGate.ts): a hash, what a vote is checked against. */
  gate: (id: string) => `cls:g:${id}`,
  /** A hash: participant -> "optionId writes", the open round's votes in force and the writes logged. */
  gateVotes: (id: string) => `cls:gv:${id}`,
  /** A set: the participants removed from the class. */
  gateRemoved: (id: string) => `cls:gx:${id}`,
  /** A stream: votes acknowledged and not yet folded into the log by the owner. */
  intake: (id: string) => `cls:in:${id}`,
};
