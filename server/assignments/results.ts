import { BUILTIN_LESSON_KEY } from "../../lib/course/pollKeys";
import { assignmentPollRecords, sessionPollRecords, type PollRecord } from "../../lib/course/records";
import { MAX_SESSIONS_PER_RESULTS, type ResultsBody } from "../../lib/course/rest";
import { courseResults, learnersCsv, resultsCsv } from "../../lib/course/results";
import type { Account } from "../store/accounts";
import type { AssignmentStore } from "../store/assignments";
import type { LessonStore } from "../store/lessons";
import type { SessionStore } from "../store/types";
import { HttpError } from "../http/httpError";

/**
 * A results page per lesson: every session the teacher ran or co-taught of
 * it, and every assignment they made of it, added up (lib/course/results.ts).
 * Only the teacher's own: a lesson's id shows nobody else's classes.
 */

export const BUILTIN_TITLE = "Kubernetes dynamic volume provisioning (the built-in lesson)";

export interface ResultsDeps {
  sessions: SessionStore;
  assignments: AssignmentStore;
  lessons?: LessonStore;
}

export function createResultsReader(deps: ResultsDeps) {
  async function lessonTitle(account: Account, lessonKey: string): Promise<string> {
    if (lessonKey === BUILTIN_LESSON_KEY) return BUILTIN_TITLE;
    const meta = lessonKey.length <= 64 ? await deps.lessons?.meta(lessonKey) : null;
    const mine =
      meta &&
      (meta.ownerAccountId === account.id || account.admin || (await deps.lessons?.lessonCoteachers(meta.id))?.includes(account.id));
    // A lesson deleted since keeps its results (its sessions carry their own copy); a stranger's reads as missing.
    if (meta && !mine) throw new HttpError(404, "NO_SUCH_LESSON", "There is no lesson of yours with that id.");
    const latest = meta ? await deps.lessons?.version(meta.id) : null;
    return latest?.lesson.title ?? "A deleted lesson";
  }

  async function records(account: Account, lessonKey: string): Promise<PollRecord[]> {
    const out: PollRecord[] = [];
    const { owned, coteaching } = await deps.sessions.sessionsOfAccount(account.id);
    const ids = [...owned, ...coteaching].slice(0, MAX_SESSIONS_PER_RESULTS);
    for (const id of ids) {
      const events = await deps.sessions.loadEvents(id);
      const created = events[0];
      if (created?.type !== "session:created") continue;
      if ((created.lesson?.id ?? BUILTIN_LESSON_KEY) !== lessonKey) continue;
      out.push(...sessionPollRecords(events));
    }
    for (const a of await deps.assignments.listByOwner(account.id)) {
      if (a.lessonKey !== lessonKey) continue;
      out.push(...assignmentPollRecords(a, await deps.assignments.students(a.id), await deps.assignments.answers(a.id)));
    }
    return out;
  }

  return {
    async results(account: Account, lessonKey: string): Promise<ResultsBody> {
      const title = await lessonTitle(account, lessonKey);
      return { lessonKey, title, results: courseResults(await records(account, lessonKey)) };
    },

    async exportCsv(account: Account, lessonKey: string, sheet: string | null): Promise<{ filename: string; body: string }> {
      if (sheet !== "polls" && sheet !== "students") throw new HttpError(400, "BAD_REQUEST", "Ask for sheet=polls or sheet=students.");
      const { results } = await this.results(account, lessonKey);
      const name = lessonKey === BUILTIN_LESSON_KEY ? "builtin-lesson" : `lesson-${lessonKey.slice(0, 12)}`;
      return sheet === "polls"
        ? { filename: `${name}-results.csv`, body: resultsCsv(results) }
        : { filename: `${name}-students.csv`, body: learnersCsv(results) };
    },
  };
}
