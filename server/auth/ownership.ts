import type { IncomingMessage } from "node:http";
import {
  MAX_CONSOLES_PER_SESSION,
  MAX_COTEACHERS,
  type AccountLesson,
  type AccountLessonList,
  type AccountSession,
  type AccountSessionList,
  type ClaimResult,
  type ConsoleView,
  type OpenedConsole,
  type Relation,
  type RotatedLessonKey,
  type TeacherView,
} from "../../lib/account/ownership";
import type { RetentionPolicy, SessionSummary } from "../../lib/protocol/rest";
import { KeyedLimiter } from "../edge/rateLimit";
import { log } from "../logger";
import { hashSecret, newSecret } from "../secrets";
import { normalizeEmail, type Account, type AccountStore } from "../store/accounts";
import { consoleIdOf } from "../store/consoles";
import type { AssignmentStore } from "../store/assignments";
import type { LessonMeta, LessonStore } from "../store/lessons";
import type { SessionRecord, SessionStore } from "../store/types";
import { AuthError } from "./errors";
import { removeAccountData, type AccountDataRemoval } from "./accountRemoval";

/**
 * What follows a teacher's account (issue 29): who may use a session or a
 * lesson besides the browser holding its key, and what they may do.
 *
 * - The **owner** (the account signed in when it was made, or the first to
 *   claim it with its key): everything the key allows, from any browser, plus
 *   opening another console, revoking consoles, inviting co-teachers, rotating
 *   a lesson's key, ending and deleting.
 * - A **co-teacher** (invited by email): a session's console ("drive"), its
 *   replay and exports; a lesson's editing, starting and export. Not inviting,
 *   rotating, deleting, or revoking others' consoles.
 * - The **administrator** (an account marked admin): reads, lists, ends and
 *   deletes every session and lesson; never drives a class (no console).
 *
 * Keys keep working as before: a browser that holds one needs no account.
 */

export interface OwnershipDeps {
  accounts: AccountStore;
  sessions: SessionStore;
  lessons?: LessonStore;
  /** Self-paced assignments: deleted with their account. */
  assignments?: AssignmentStore;
  /** The request's signed-in account, or null. */
  accountOf: (req: IncomingMessage) => Promise<Account | null>;
  /** Ends a live session as its console's "end" does (through the rooms: in a cluster, on the node that runs it). */
  endSession: (sessionId: string) => Promise<void>;
  /** Closes the session's console sockets: each reconnects with its key, and one whose key was revoked is refused. */
  consolesRevoked: (sessionId: string) => void;
  retention: RetentionPolicy;
  now?: () => number;
}

/** Invitations one account may send: 20 at once, then one every 30 s (each says whether an email has an account). */
export const INVITES_PER_ACCOUNT = { capacity: 20, refillPerSecond: 1 / 30 };

export type Ownership = ReturnType<typeof createOwnership>;

export function createOwnership(deps: OwnershipDeps) {
  const { accounts, sessions, lessons } = deps;
  const now = deps.now ?? Date.now;
  const invites = new KeyedLimiter(INVITES_PER_ACCOUNT);

  const noSuchSession = () => new AuthError(404, "NO_SUCH_SESSION");
  const noSuchLesson = () => new AuthError(404, "NO_SUCH_LESSON");
  const noAccess = () => new AuthError(403, "NO_ACCESS");
  const notOwner = () => new AuthError(403, "NOT_OWNER");

  function lessonStore(): LessonStore {
    if (!lessons) throw new AuthError(404, "NO_LESSONS");
    return lessons;
  }

  async function sessionRelation(account: Account | null, rec: SessionRecord): Promise<Relation | null> {
    if (!account) return null;
    if (rec.ownerAccountId === account.id) return "owner";
    if ((await sessions.sessionCoteachers(rec.id)).includes(account.id)) return "coteacher";
    return account.admin ? "admin" : null;
  }

  async function lessonRelation(account: Account | null, meta: LessonMeta): Promise<Relation | null> {
    if (!account || !lessons) return null;
    if (meta.ownerAccountId === account.id) return "owner";
    if ((await lessons.lessonCoteachers(meta.id)).includes(account.id)) return "coteacher";
    return account.admin ? "admin" : null;
  }

  /** The session, if this account may see it at all; a stranger learns only that it is not theirs. */
  async function sessionFor(account: Account, id: string): Promise<{ rec: SessionRecord; relation: Relation }> {
    const rec = await sessions.getSession(id);
    if (!rec) throw noSuchSession();
    const relation = await sessionRelation(account, rec);
    if (!relation) throw noAccess();
    return { rec, relation };
  }

  async function lessonFor(account: Account, id: string): Promise<{ meta: LessonMeta; relation: Relation }> {
    const meta = await lessonStore().meta(id);
    if (!meta || meta.deletedAt !== null) throw noSuchLesson();
    const relation = await lessonRelation(account, meta);
    if (!relation) throw noAccess();
    return { meta, relation };
  }

  /** Display names (and emails) of accounts, read once per request. */
  function people() {
    const seen = new Map<string, Account | null>();
    return async (id: string): Promise<Account | null> => {
      if (!seen.has(id)) seen.set(id, await accounts.account(id));
      return seen.get(id) ?? null;
    };
  }

  async function teachers(ids: readonly string[], find: ReturnType<typeof people>): Promise<TeacherView[]> {
    const out: TeacherView[] = [];
    for (const id of ids) {
      const a = await find(id);
      if (a) out.push({ id: a.id, displayName: a.displayName, email: a.email });
    }
    return out;
  }

  async function consoleViews(sessionId: string, presented: ReadonlySet<string>, find: ReturnType<typeof people>): Promise<ConsoleView[]> {
    const out: ConsoleView[] = [];
    for (const c of await sessions.consoles(sessionId)) {
      const by = c.accountId ? await find(c.accountId) : null;
      out.push({
        id: c.id,
        createdAt: c.createdAt,
        openedBy: c.accountId ? (by?.displayName ?? "a deleted account") : null,
        here: presented.has(c.keyHash),
      });
    }
    return out;
  }

  async function sessionView(
    account: Account,
    summary: SessionSummary,
    presented: ReadonlySet<string>,
    find: ReturnType<typeof people>,
  ): Promise<AccountSession | null> {
    const rec = await sessions.getSession(summary.id);
    if (!rec) return null;
    const relation = await sessionRelation(account, rec);
    if (!relation) return null;
    const manages = relation === "owner" || relation === "admin";
    const drives = relation === "owner" || relation === "coteacher";
    return {
      ...summary,
      durationMs: (summary.endedAt ?? summary.lastEventAt) - summary.createdAt,
      access: relation === "admin" ? "admin" : "host",
      relation,
      owner: rec.ownerAccountId ? ((await find(rec.ownerAccountId))?.displayName ?? null) : null,
      coteachers: manages ? await teachers(await sessions.sessionCoteachers(rec.id), find) : [],
      consoles: drives && summary.status === "live" ? await consoleViews(rec.id, presented, find) : [],
    };
  }

  /** Checked before anything is looked up, so a refused invitation costs the inviter as much as an accepted one. */
  function spendInvite(account: Account): void {
    if (!invites.take(account.id)) throw new AuthError(429, "RATE_LIMITED");
  }

  async function invitee(account: Account, email: string): Promise<Account> {
    const found = await accounts.accountByEmail(normalizeEmail(email));
    if (!found) throw new AuthError(404, "NO_SUCH_ACCOUNT", undefined, undefined, "email");
    if (found.id === account.id) throw new AuthError(409, "ALREADY_INVITED", "You own it already.", undefined, "email");
    return found;
  }

  return {
    /** How the request's account may read a saved session: "host" (owner, co-teacher), "admin", or null. */
    async sessionAccess(req: IncomingMessage, rec: SessionRecord): Promise<"host" | "admin" | null> {
      const relation = await sessionRelation(await deps.accountOf(req), rec);
      return relation === null ? null : relation === "admin" ? "admin" : "host";
    },

    /** How the request's account stands to a lesson, and the account. */
    async lessonAccess(req: IncomingMessage, meta: LessonMeta): Promise<{ account: Account | null; relation: Relation | null }> {
      const account = await deps.accountOf(req);
      return { account, relation: await lessonRelation(account, meta) };
    },

    accountOf: deps.accountOf,

    async requireAccount(req: IncomingMessage): Promise<Account> {
      const account = await deps.accountOf(req);
      if (!account) throw new AuthError(401, "SIGNED_OUT");
      return account;
    },

    /** Makes the sessions and lessons this browser's keys open the account's, when nobody owns them yet. */
    async claim(account: Account, hostKeyHashes: readonly string[], lessonKeyHashes: readonly string[]): Promise<ClaimResult> {
      const result: ClaimResult = { sessions: 0, lessons: 0 };
      for (const id of await sessions.sessionIdsByHostKeyHash(hostKeyHashes)) {
        const rec = await sessions.getSession(id);
        if (rec && rec.ownerAccountId === null && (await sessions.claimSession(id, account.id))) result.sessions += 1;
      }
      if (lessons && lessonKeyHashes.length > 0) {
        for (const summary of await lessons.list(lessonKeyHashes)) {
          const meta = await lessons.meta(summary.id);
          if (meta && meta.ownerAccountId === null && (await lessons.claimLesson(summary.id, account.id))) result.lessons += 1;
        }
      }
      if (result.sessions + result.lessons > 0) log.info("keys claimed for an account", { accountId: account.id, ...result });
      return result;
    },

    async listSessions(account: Account, presentedHostKeyHashes: readonly string[], all: boolean): Promise<AccountSessionList> {
      if (all && !account.admin) throw new AuthError(403, "NOT_ADMIN");
      const presented = new Set(presentedHostKeyHashes);
      const find = people();
      let summaries: SessionSummary[];
      if (all) summaries = await sessions.listSessions();
      else {
        const { owned, coteaching } = await sessions.sessionsOfAccount(account.id);
        summaries = (await sessions.listSessions([...new Set([...owned, ...coteaching])])).sort((a, b) => b.createdAt - a.createdAt);
      }
      const out: AccountSession[] = [];
      for (const summary of summaries) {
        const view = await sessionView(account, summary, presented, find);
        if (view) out.push(view);
      }
      return { scope: all ? "all" : "mine", sessions: out, retention: deps.retention };
    },

    async listLessons(account: Account, presentedLessonKeyHashes: readonly string[], all: boolean): Promise<AccountLessonList> {
      if (all && !account.admin) throw new AuthError(403, "NOT_ADMIN");
      const store = lessonStore();
      const presented = new Set(presentedLessonKeyHashes);
      const find = people();
      let summaries;
      if (all) summaries = await store.list(null);
      else {
        const { owned, coediting } = await store.lessonsOfAccount(account.id);
        summaries = await store.list([], [...owned, ...coediting]);
      }
      const out: AccountLesson[] = [];
      for (const summary of summaries) {
        const meta = await store.meta(summary.id);
        const relation = meta && (await lessonRelation(account, meta));
        if (!meta || !relation) continue;
        const manages = relation === "owner" || relation === "admin";
        out.push({
          ...summary,
          relation,
          owner: meta.ownerAccountId ? ((await find(meta.ownerAccountId))?.displayName ?? null) : null,
          coteachers: manages ? await teachers(await store.lessonCoteachers(meta.id), find) : [],
          keyHere: presented.has(meta.ownerKeyHash),
        });
      }
      return { scope: all ? "all" : "mine", lessons: out };
    },

    /** A console of its own for this browser: a new key, for the owner or a co-teacher of a live session. */
    async openConsole(account: Account, sessionId: string): Promise<OpenedConsole> {
      const { rec, relation } = await sessionFor(account, sessionId);
      if (relation === "admin") throw new AuthError(403, "NO_ACCESS", "An administrator manages sessions but does not teach them.");
      if (rec.endedAt !== null) throw new AuthError(409, "SESSION_ENDED");
      if ((await sessions.consoles(sessionId)).length >= MAX_CONSOLES_PER_SESSION) throw new AuthError(409, "TOO_MANY");
      const hostKey = newSecret();
      const keyHash = hashSecret(hostKey);
      const consoleId = consoleIdOf(keyHash);
      await sessions.addConsole(sessionId, { id: consoleId, keyHash, accountId: account.id, createdAt: now() });
      log.info("console opened", { sessionId, accountId: account.id });
      return { consoleId, hostKey, code: rec.code, hostPath: `/host/${rec.code}#key=${hostKey}` };
    },

    async consoles(account: Account, sessionId: string, presentedHostKeyHashes: readonly string[]): Promise<ConsoleView[]> {
      await sessionFor(account, sessionId);
      return consoleViews(sessionId, new Set(presentedHostKeyHashes), people());
    },

    /**
     * Revokes one console's key (the owner or the administrator: any; a
     * co-teacher: those it opened), then closes the session's consoles so the
     * revoked one must present its key again, and is refused.
     */
    async revokeConsole(account: Account, sessionId: string, consoleId: string): Promise<{ revoked: true }> {
      const { relation } = await sessionFor(account, sessionId);
      const target = (await sessions.consoles(sessionId)).find((c) => c.id === consoleId);
      if (!target) throw new AuthError(404, "NO_SUCH_CONSOLE");
      if (relation === "coteacher" && target.accountId !== account.id) throw notOwner();
      await sessions.revokeConsole(sessionId, consoleId);
      deps.consolesRevoked(sessionId);
      log.info("console revoked", { sessionId, accountId: account.id });
      return { revoked: true };
    },

    async sessionCoteachers(account: Account, sessionId: string): Promise<TeacherView[]> {
      const { relation } = await sessionFor(account, sessionId);
      if (relation === "coteacher") throw notOwner();
      return teachers(await sessions.sessionCoteachers(sessionId), people());
    },

    async inviteToSession(account: Account, sessionId: string, email: string): Promise<TeacherView[]> {
      spendInvite(account);
      const { relation } = await sessionFor(account, sessionId);
      if (relation !== "owner") throw notOwner();
      const invited = await invitee(account, email);
      const current = await sessions.sessionCoteachers(sessionId);
      if (current.includes(invited.id)) throw new AuthError(409, "ALREADY_INVITED", undefined, undefined, "email");
      if (current.length >= MAX_COTEACHERS) throw new AuthError(409, "TOO_MANY");
      await sessions.addSessionCoteacher(sessionId, invited.id, now());
      log.info("co-teacher invited", { sessionId, accountId: account.id, invited: invited.id });
      return teachers(await sessions.sessionCoteachers(sessionId), people());
    },

    /** The owner removes a co-teacher; a co-teacher may leave. Their consoles go with them. */
    async removeFromSession(account: Account, sessionId: string, accountId: string): Promise<{ removed: true }> {
      const { relation } = await sessionFor(account, sessionId);
      if (relation !== "owner" && relation !== "admin" && accountId !== account.id) throw notOwner();
      if (!(await sessions.removeSessionCoteacher(sessionId, accountId))) throw new AuthError(404, "NO_SUCH_ACCOUNT");
      const theirs = (await sessions.consoles(sessionId)).filter((c) => c.accountId === accountId);
      for (const c of theirs) await sessions.revokeConsole(sessionId, c.id);
      if (theirs.length > 0) deps.consolesRevoked(sessionId);
      return { removed: true };
    },

    async lessonCoteachers(account: Account, lessonId: string): Promise<TeacherView[]> {
      const { relation } = await lessonFor(account, lessonId);
      if (relation === "coteacher") throw notOwner();
      return teachers(await lessonStore().lessonCoteachers(lessonId), people());
    },

    async inviteToLesson(account: Account, lessonId: string, email: string): Promise<TeacherView[]> {
      spendInvite(account);
      const { relation } = await lessonFor(account, lessonId);
      if (relation !== "owner") throw notOwner();
      const invited = await invitee(account, email);
      const store = lessonStore();
      const current = await store.lessonCoteachers(lessonId);
      if (current.includes(invited.id)) throw new AuthError(409, "ALREADY_INVITED", undefined, undefined, "email");
      if (current.length >= MAX_COTEACHERS) throw new AuthError(409, "TOO_MANY");
      await store.addLessonCoteacher(lessonId, invited.id, now());
      log.info("co-teacher invited", { lessonId, accountId: account.id, invited: invited.id });
      return teachers(await store.lessonCoteachers(lessonId), people());
    },

    async removeFromLesson(account: Account, lessonId: string, accountId: string): Promise<{ removed: true }> {
      const { relation } = await lessonFor(account, lessonId);
      if (relation !== "owner" && relation !== "admin" && accountId !== account.id) throw notOwner();
      if (!(await lessonStore().removeLessonCoteacher(lessonId, accountId))) throw new AuthError(404, "NO_SUCH_ACCOUNT");
      return { removed: true };
    },

    /** A new lesson key for this browser: whatever browsers held the old one no longer open the lesson. */
    async rotateLessonKey(account: Account, lessonId: string): Promise<RotatedLessonKey> {
      const { relation } = await lessonFor(account, lessonId);
      if (relation !== "owner") throw notOwner();
      const lessonKey = newSecret();
      await lessonStore().setLessonKey(lessonId, hashSecret(lessonKey));
      log.info("lesson key rotated", { lessonId, accountId: account.id });
      return { lessonKey };
    },

    /** Ends a live session (its owner or the administrator); ending an ended one changes nothing. */
    async endSession(account: Account, sessionId: string): Promise<{ ended: true }> {
      const { rec, relation } = await sessionFor(account, sessionId);
      if (relation === "coteacher") throw notOwner();
      if (rec.endedAt === null) await deps.endSession(sessionId);
      return { ended: true };
    },

    /** Deletes an ended session with its log, as retention would (its owner or the administrator). */
    async deleteSession(account: Account, sessionId: string): Promise<{ deleted: true }> {
      const { rec, relation } = await sessionFor(account, sessionId);
      if (relation === "coteacher") throw notOwner();
      if (rec.endedAt === null) throw new AuthError(409, "SESSION_LIVE");
      if (!(await sessions.deleteEndedSession(sessionId))) throw new AuthError(409, "SESSION_LIVE");
      log.info("session deleted", { sessionId, accountId: account.id });
      return { deleted: true };
    },

    /** Before an account is deleted: what it had goes, or passes to a co-teacher (./accountRemoval.ts). */
    removeAccountData: (accountId: string): Promise<AccountDataRemoval> => removeAccountData(deps, accountId),
  };
}
