import { log } from "../logger";
import type { AssignmentStore } from "../store/assignments";
import type { LessonStore } from "../store/lessons";
import type { SessionStore } from "../store/types";

/** What deleting an account did to what it had (docs/security.md "Accounts"). */
export interface AccountDataRemoval {
  sessionsDeleted: number;
  sessionsHandedOver: number;
  /** Live sessions it owned alone: they keep running for the consoles that hold their keys, owned by nobody. */
  sessionsLeftLive: number;
  lessonsDeleted: number;
  lessonsHandedOver: number;
  /** Its self-paced assignments, with their students' answers: they are the account's alone. */
  assignmentsDeleted: number;
}

/** What removing an account's data needs: the stores, and a way to close the consoles whose keys it revokes. */
export interface RemovalDeps {
  sessions: SessionStore;
  lessons?: LessonStore;
  assignments?: AssignmentStore;
  consolesRevoked: (sessionId: string) => void;
}

/**
 * Before an account is deleted: what it owned alone goes (ended sessions
 * and lessons; a live session is left running, owned by nobody, for the
 * consoles that hold its keys, until it ends and retention deletes it);
 * what it shared with co-teachers passes to the first of them; it leaves
 * what it co-taught, and the consoles it opened are revoked.
 */
export async function removeAccountData(deps: RemovalDeps, accountId: string): Promise<AccountDataRemoval> {
  const { sessions, lessons } = deps;
  const done: AccountDataRemoval = {
    sessionsDeleted: 0,
    sessionsHandedOver: 0,
    sessionsLeftLive: 0,
    lessonsDeleted: 0,
    lessonsHandedOver: 0,
    assignmentsDeleted: 0,
  };
  const { owned, coteaching } = await sessions.sessionsOfAccount(accountId);
  for (const id of coteaching) await sessions.removeSessionCoteacher(id, accountId);
  for (const id of [...owned, ...coteaching]) {
    const theirs = (await sessions.consoles(id)).filter((c) => c.accountId === accountId);
    for (const c of theirs) await sessions.revokeConsole(id, c.id);
    if (theirs.length > 0) deps.consolesRevoked(id);
  }
  for (const id of owned) {
    const rec = await sessions.getSession(id);
    if (!rec) continue;
    const [heir] = await sessions.sessionCoteachers(id);
    if (heir) {
      await sessions.setSessionOwner(id, heir);
      await sessions.removeSessionCoteacher(id, heir);
      done.sessionsHandedOver += 1;
    } else if (rec.endedAt !== null && (await sessions.deleteEndedSession(id))) {
      done.sessionsDeleted += 1;
    } else {
      await sessions.setSessionOwner(id, null);
      done.sessionsLeftLive += 1;
    }
  }
  if (lessons) {
    const mine = await lessons.lessonsOfAccount(accountId);
    for (const id of mine.coediting) await lessons.removeLessonCoteacher(id, accountId);
    for (const id of mine.owned) {
      const [heir] = await lessons.lessonCoteachers(id);
      if (heir) {
        await lessons.setLessonOwner(id, heir);
        await lessons.removeLessonCoteacher(id, heir);
        done.lessonsHandedOver += 1;
      } else {
        await lessons.remove(id);
        done.lessonsDeleted += 1;
      }
    }
  }
  for (const a of (await deps.assignments?.listByOwner(accountId)) ?? []) {
    await deps.assignments?.remove(a.id);
    done.assignmentsDeleted += 1;
  }
  log.info("account data removed", { accountId, ...done });
  return done;
}
