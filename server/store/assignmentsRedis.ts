import type { Assignment, AssignmentAnswer, AssignmentStudent } from "../../lib/course/types";
import type { AddStudentLimits, AddStudentRefusal, AssignmentStore } from "./assignments";
import { assignmentJson, checkAnswer, checkStudent, storedAnswer, storedAssignment, storedStudent } from "./assignmentsSchema";
import { asString, asStrings, redisCommand, type RedisClient } from "./redisClient";
import { StoreError } from "./types";

/**
 * Scale-out: assignments in the Redis every node shares, so a student's next
 * request may land on any node. Keys (all `cls:` like the sessions'):
 * `cls:asg:{id}` a hash (the body's JSON, and apart from it the owner, the
 * creation time and the two fields that change, due and closed; '' is null),
 * `cls:asg-owner:{account}` a sorted set of the account's assignments by
 * creation; per assignment `:st` (student id -> who they are, written once),
 * `:prog` (student id -> progress, rewritten as they move), `:st-order`
 * (students by start), `:tok` (token hash -> student id), `:addr` (address ->
 * identities made from it), `:ans` (`{student}:{poll}` -> the answer, set
 * once), `:ans-order` (those fields by when) and `:ans-by` (the same fields,
 * score 0, so one student's are a lexicographic range). Student ids are the
 * server's own (no ':'), so an answer's field names one student and one poll.
 *
 * Whatever must hold across keys (limits with the insert, first answer wins,
 * nothing left behind by a removal) runs as one script. A write is applied
 * when its promise resolves; it is as durable as the Redis server's
 * persistence settings make it (deploy/README.md), as for the sessions.
 * Orders match the SQLite store's: ties go by member, as a sorted set breaks them.
 */
const key = (id: string) => `cls:asg:${id}`;
const ownerKey = (accountId: string) => `cls:asg-owner:${accountId}`;
const K = {
  assignment: key,
  students: (id: string) => `${key(id)}:st`,
  progress: (id: string) => `${key(id)}:prog`,
  studentOrder: (id: string) => `${key(id)}:st-order`,
  tokens: (id: string) => `${key(id)}:tok`,
  addresses: (id: string) => `${key(id)}:addr`,
  answers: (id: string) => `${key(id)}:ans`,
  answerOrder: (id: string) => `${key(id)}:ans-order`,
  answersBy: (id: string) => `${key(id)}:ans-by`,
};
const everyKey = (id: string) => Object.values(K).map((k) => k(id));

/** KEYS: assignment, owner's set. ARGV: id, body, owner, createdAt, dueAt, closedAt. */
const CREATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.error_reply('EXISTS the assignment exists already') end
redis.call('HSET', KEYS[1], 'json', ARGV[2], 'owner', ARGV[3], 'createdAt', ARGV[4], 'dueAt', ARGV[5], 'closedAt', ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
return 1
`;

/** KEYS: assignment. ARGV: field, value. Nothing for an assignment that is gone (a stray hash would read as a damaged one). */
const SET_FIELD = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
`;

/**
 * KEYS: assignment, students, order, tokens, addresses.
 * ARGV: student id, token hash, address, student JSON, startedAt, maxStudents, maxPerAddress.
 */
const ADD_STUDENT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('MISSING the assignment does not exist') end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 or redis.call('HEXISTS', KEYS[4], ARGV[2]) == 1 then
  return redis.error_reply('DUPLICATE the student or their token exists already')
end
if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[6]) then return 'FULL' end
if tonumber(redis.call('HGET', KEYS[5], ARGV[3]) or '0') >= tonumber(ARGV[7]) then return 'ADDRESS_FULL' end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
redis.call('HSET', KEYS[4], ARGV[2], ARGV[1])
redis.call('HINCRBY', KEYS[5], ARGV[3], 1)
return 'OK'
`;

/** KEYS: students, progress. ARGV: student id, progress JSON. */
const SET_PROGRESS = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
`;

/** KEYS: assignment, answers, by time, by student. ARGV: field, answer JSON, at. Replies {1 if new, the answer in force}. */
const ANSWER = `
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('MISSING the assignment does not exist') end
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 1 then
  redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
  redis.call('ZADD', KEYS[4], 0, ARGV[1])
  return {1, ARGV[2]}
end
return {0, redis.call('HGET', KEYS[2], ARGV[1])}
`;

/** KEYS: every key of the assignment, its hash first. ARGV: id. */
const REMOVE = `
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner then redis.call('ZREM', 'cls:asg-owner:' .. owner, ARGV[1]) end
redis.call('DEL', unpack(KEYS))
return 1
`;

const orNull = (v: string | undefined): number | null => (v === undefined || v === "" ? null : Number(v));
const orEmpty = (v: number | null): string | number => v ?? "";

function hashOf(reply: unknown): Record<string, string> | null {
  const flat = asStrings(reply);
  if (flat.length === 0) return null;
  const h: Record<string, string> = {};
  for (let i = 0; i < flat.length; i += 2) h[flat[i]] = flat[i + 1];
  return h;
}

type AddStudentResult = { ok: true } | { ok: false; reason: AddStudentRefusal };

export class RedisAssignmentStore implements AssignmentStore {
  constructor(private readonly client: RedisClient) {}

  private cmd(...args: (string | number)[]): Promise<unknown> {
    return redisCommand(this.client, args);
  }

  async create(a: Assignment): Promise<void> {
    const body = assignmentJson(a);
    const keys = [K.assignment(a.id), ownerKey(a.ownerAccountId)];
    await this.cmd("EVAL", CREATE, keys.length, ...keys, a.id, body, a.ownerAccountId, a.createdAt, orEmpty(a.dueAt), orEmpty(a.closedAt));
  }

  async get(id: string): Promise<Assignment | null> {
    const h = hashOf(await this.cmd("HGETALL", K.assignment(id)));
    if (!h) return null;
    if (h.json === undefined || h.owner === undefined) throw new StoreError(`assignment ${id} is damaged`);
    return storedAssignment(h.json, {
      id,
      ownerAccountId: h.owner,
      createdAt: Number(h.createdAt),
      dueAt: orNull(h.dueAt),
      closedAt: orNull(h.closedAt),
    });
  }

  async listByOwner(accountId: string): Promise<Assignment[]> {
    const ids = asStrings(await this.cmd("ZREVRANGE", ownerKey(accountId), 0, -1));
    // One removed between the two reads is simply not listed.
    const found = await Promise.all(ids.map((id) => this.get(id)));
    return found.filter((a) => a !== null);
  }

  async countByOwner(accountId: string): Promise<number> {
    return Number(await this.cmd("ZCARD", ownerKey(accountId)));
  }

  async setClosed(id: string, closedAt: number | null): Promise<void> {
    await this.cmd("EVAL", SET_FIELD, 1, K.assignment(id), "closedAt", orEmpty(closedAt));
  }

  async setDue(id: string, dueAt: number | null): Promise<void> {
    await this.cmd("EVAL", SET_FIELD, 1, K.assignment(id), "dueAt", orEmpty(dueAt));
  }

  async remove(id: string): Promise<void> {
    const keys = everyKey(id);
    await this.cmd("EVAL", REMOVE, keys.length, ...keys, id);
  }

  async addStudent(s: AssignmentStudent, limits: AddStudentLimits): Promise<AddStudentResult> {
    checkStudent(s);
    const id = s.assignmentId;
    const keys = [K.assignment(id), K.students(id), K.studentOrder(id), K.tokens(id), K.addresses(id)];
    const reply = asString(
      await this.cmd(
        "EVAL",
        ADD_STUDENT,
        keys.length,
        ...keys,
        s.id,
        s.tokenHash,
        s.address,
        JSON.stringify(s),
        s.startedAt,
        limits.maxStudents,
        limits.maxPerAddress,
      ),
    );
    if (reply === "OK") return { ok: true };
    if (reply === "FULL" || reply === "ADDRESS_FULL") return { ok: false, reason: reply };
    throw new StoreError(`redis answered ${reply} to adding a student`);
  }

  private async student(assignmentId: string, studentId: string): Promise<AssignmentStudent | null> {
    const who = asString(await this.cmd("HGET", K.students(assignmentId), studentId));
    if (who === null) return null;
    const progress = asString(await this.cmd("HGET", K.progress(assignmentId), studentId));
    return storedStudent(who, progress ?? undefined, studentId);
  }

  async studentByToken(assignmentId: string, tokenHash: string): Promise<AssignmentStudent | null> {
    const studentId = asString(await this.cmd("HGET", K.tokens(assignmentId), tokenHash));
    return studentId === null ? null : this.student(assignmentId, studentId);
  }

  async students(assignmentId: string): Promise<AssignmentStudent[]> {
    const ids = asStrings(await this.cmd("ZRANGE", K.studentOrder(assignmentId), 0, -1));
    if (ids.length === 0) return [];
    const who = await this.cmd("HMGET", K.students(assignmentId), ...ids);
    const progress = await this.cmd("HMGET", K.progress(assignmentId), ...ids);
    if (!Array.isArray(who) || !Array.isArray(progress)) throw new StoreError("redis answered something other than a list");
    const out: AssignmentStudent[] = [];
    ids.forEach((studentId, i) => {
      const w = asString(who[i]);
      // Removed between the reads: not listed.
      if (w !== null) out.push(storedStudent(w, asString(progress[i]) ?? undefined, studentId));
    });
    return out;
  }

  async setProgress(
    assignmentId: string,
    studentId: string,
    p: Pick<AssignmentStudent, "stepIndex" | "furthestStep" | "finishedAt" | "updatedAt">,
  ): Promise<void> {
    const progress = { stepIndex: p.stepIndex, furthestStep: p.furthestStep, finishedAt: p.finishedAt, updatedAt: p.updatedAt };
    await this.cmd("EVAL", SET_PROGRESS, 2, K.students(assignmentId), K.progress(assignmentId), studentId, JSON.stringify(progress));
  }

  async answer(a: AssignmentAnswer): Promise<{ answer: AssignmentAnswer; created: boolean }> {
    checkAnswer(a);
    const id = a.assignmentId;
    const field = `${a.studentId}:${a.pollId}`;
    const keys = [K.assignment(id), K.answers(id), K.answerOrder(id), K.answersBy(id)];
    const json = JSON.stringify({ assignmentId: id, studentId: a.studentId, pollId: a.pollId, optionId: a.optionId, at: a.at });
    const reply = await this.cmd("EVAL", ANSWER, keys.length, ...keys, field, json, a.at);
    if (!Array.isArray(reply) || reply.length !== 2) throw new StoreError("redis answered something other than an answer");
    const inForce = asString(reply[1]);
    if (inForce === null) throw new StoreError(`assignment ${id}: the answer in force is missing`);
    return { answer: storedAnswer(inForce, field), created: Number(reply[0]) === 1 };
  }

  private async answersAt(assignmentId: string, fields: string[]): Promise<AssignmentAnswer[]> {
    if (fields.length === 0) return [];
    const reply = await this.cmd("HMGET", K.answers(assignmentId), ...fields);
    if (!Array.isArray(reply)) throw new StoreError("redis answered something other than a list");
    const out: AssignmentAnswer[] = [];
    reply.forEach((json: unknown, i) => {
      const s = asString(json);
      if (s !== null) out.push(storedAnswer(s, fields[i]));
    });
    return out;
  }

  async answers(assignmentId: string): Promise<AssignmentAnswer[]> {
    return this.answersAt(assignmentId, asStrings(await this.cmd("ZRANGE", K.answerOrder(assignmentId), 0, -1)));
  }

  async answersOf(assignmentId: string, studentId: string): Promise<AssignmentAnswer[]> {
    // ';' sorts right after ':', so the range is exactly the fields `{studentId}:…`.
    const fields = asStrings(await this.cmd("ZRANGEBYLEX", K.answersBy(assignmentId), `[${studentId}:`, `(${studentId};`));
    const found = await this.answersAt(assignmentId, fields);
    return found.sort((x, y) => x.at - y.at || (x.pollId < y.pollId ? -1 : x.pollId > y.pollId ? 1 : 0));
  }

  async close(): Promise<void> {
    // The client belongs to the session store, which closes it.
  }
}
