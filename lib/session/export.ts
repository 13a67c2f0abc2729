import { assertNever } from "../assertNever";
import { publicLesson } from "../lesson/model";
import { applyEvent, countVotes, initialState, own, replay } from "./reducer";
import { EVENT_LOG_VERSION, type SessionEvent, type SessionState } from "./types";
import { questionRows, shareableQuestionEvents } from "./questions";

/**
 * Read models over a saved log: what a shared replay may see, and the
 * exports. All pure; the server only adds the HTTP around them.
 */

/**
 * A shared replay shows aggregates only: nicknames become "Student N" in join
 * order, and individual votes are left out (each round's counts are on its
 * poll:closed event), so nobody's answers can be followed from poll to poll.
 */
export function anonymizeLog(events: readonly SessionEvent[]): SessionEvent[] {
  const numbers = new Map<string, number>();
  return events
    .filter((e) => e.type !== "poll:voted")
    .map((e) => {
      if (e.type === "participant:joined") {
        numbers.set(e.participantId, numbers.size + 1);
        return { ...e, nickname: `Student ${numbers.get(e.participantId)}` };
      }
      if (e.type === "participant:renamed") {
        return { ...e, nickname: `Student ${numbers.get(e.participantId) ?? "?"}` };
      }
      return e;
    });
}

/**
 * What a shared replay link may read: `anonymizeLog`, and polls as the class
 * saw them. A poll the teacher never revealed keeps its answer and its notes
 * secret, and a round's counts are shown only if that round was revealed (a
 * student holding a share link of a live session must not read the answer of
 * the open poll). Revealed polls are shown in full. Questions as
 * `shareableQuestionEvents` leaves them: only those the class could see, and
 * no asker on an anonymous one.
 */
export function shareableLog(events: readonly SessionEvent[]): SessionEvent[] {
  // A round's counts are shown once a reveal of its poll follows its close: the class then sees every
  // earlier round beside the revealed one (the shift between votes), so the shared view shows them too.
  const lastReveal = new Map<string, number>();
  for (const e of events) if (e.type === "poll:revealed") lastReveal.set(e.pollId, e.seq);
  const revealedPolls = new Set(lastReveal.keys());
  // Every event type says here how a share link sees it: a new one does not compile until it is classified.
  return anonymizeLog(shareableQuestionEvents(events)).map((e): SessionEvent => {
    switch (e.type) {
      case "poll:opened":
        if (revealedPolls.has(e.poll.id)) return e;
        return { ...e, poll: { ...e.poll, correctOptionId: null, options: e.poll.options.map(({ id, text }) => ({ id, text })) } };
      case "poll:closed":
        return e.seq < (lastReveal.get(e.pollId) ?? -1) ? e : { ...e, counts: {}, total: 0, withheld: true };
      case "session:created":
        // The teacher's speaker notes are the teacher's: a shared replay has the lesson as the class had it.
        return e.lesson ? { ...e, lesson: publicLesson(e.lesson) } : e;
      // Already made anonymous above (names, votes, askers), or what the whole class saw as it happened.
      case "participant:joined":
      case "participant:renamed":
      case "participant:removed":
      case "participant:readmitted":
      case "poll:voted":
      case "question:asked":
      case "question:upvoted":
      case "question:approved":
      case "question:answered":
      case "question:hidden":
      case "question:shown":
      case "questions:blocked": // left out above: whom the teacher stopped asking is not the class's to see
      case "questions:configured":
      case "step:changed":
      case "mode:changed":
      case "version:changed":
      case "room:locked":
      case "class:paused":
      case "poll:revealed":
      case "poll:reopened":
      case "results:visibility":
      case "projector:panelChanged":
      case "projector:focusChanged":
      case "projector:languageChanged":
      case "session:ended":
        return e;
      default:
        return assertNever(e);
    }
  });
}

export interface ExportedLog {
  format: "classroom-session-log";
  version: number;
  session: { id: string; code: string; title: string; createdAt: number; endedAt: number | null };
  events: SessionEvent[];
}

export function exportLog(events: readonly SessionEvent[]): ExportedLog {
  const state = replay(events);
  return {
    format: "classroom-session-log",
    version: EVENT_LOG_VERSION,
    session: { id: state.id, code: state.code, title: state.title, createdAt: state.createdAt, endedAt: state.endedAt },
    events: [...events],
  };
}

/** One closed round of one poll, with who voted what (for the teacher's sheet). */
export interface ClosedRound {
  pollNumber: number;
  pollId: string;
  question: string;
  round: number;
  options: { id: string; text: string }[];
  correctOptionId: string | null;
  counts: Record<string, number>;
  total: number;
  votes: Record<string, string>;
  /** A shared log's round that the teacher did not reveal: its counts are not in the log. */
  withheld: boolean;
}

/** Every closed round, in order, by folding the log and looking just before each close. */
export function closedRounds(events: readonly SessionEvent[]): { rounds: ClosedRound[]; final: SessionState } {
  const state = initialState();
  const rounds: ClosedRound[] = [];
  const capture = (s: SessionState, pollId: string, taken?: { counts: Record<string, number>; total: number; withheld?: boolean }) => {
    const poll = own(s.polls, pollId);
    if (!poll || poll.status !== "open") return;
    // The counts the server took at the close (a shared log has no individual votes to count).
    const { counts, total } = taken ?? countVotes(poll);
    rounds.push({
      pollNumber: s.pollOrder.indexOf(pollId) + 1,
      pollId,
      question: poll.question,
      round: poll.round,
      options: poll.options.map(({ id, text }) => ({ id, text })),
      correctOptionId: poll.correctOptionId,
      counts,
      total,
      votes: { ...poll.votes },
      withheld: taken?.withheld === true,
    });
  };
  for (const event of events) {
    if (event.type === "poll:closed") capture(state, event.pollId, event);
    if (event.type === "session:ended" && state.activePollId) capture(state, state.activePollId);
    applyEvent(state, event);
  }
  return { rounds, final: state };
}

/** Spreadsheet-safe CSV: quotes where needed, and cells that a spreadsheet would run as formulas are defused. */
export function toCsv(rows: readonly (readonly (string | number | null)[])[]): string {
  const cell = (value: string | number | null) => {
    if (value === null) return "";
    let text = String(value);
    if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
    return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return rows.map((r) => r.map(cell).join(",")).join("\r\n") + "\r\n";
}

/** One row per poll round and option: counts, share, and whether it was the right answer. */
export function pollCsv(events: readonly SessionEvent[]): string {
  const rows: (string | number | null)[][] = [["poll", "question", "round", "option", "votes", "percent", "correct"]];
  for (const r of closedRounds(events).rounds) {
    for (const o of r.options) {
      if (r.withheld) {
        rows.push([r.pollNumber, r.question, r.round, o.text, "not revealed", "not revealed", "not revealed"]);
        continue;
      }
      const n = r.counts[o.id] ?? 0;
      rows.push([
        r.pollNumber,
        r.question,
        r.round,
        o.text,
        n,
        r.total ? Math.round((n / r.total) * 100) : 0,
        r.correctOptionId === null ? "n/a" : r.correctOptionId === o.id ? "yes" : "no",
      ]);
    }
  }
  return toCsv(rows);
}

/** The teacher's sheet: one row per student, one column per poll round (their answer, and whether it was right). */
export function studentCsv(events: readonly SessionEvent[]): string {
  const { rounds, final } = closedRounds(events);
  const header = [
    "student",
    ...rounds.flatMap((r) => [`poll ${r.pollNumber} round ${r.round}`, `poll ${r.pollNumber} round ${r.round} correct`]),
  ];
  const rows: (string | number | null)[][] = [header];
  for (const p of Object.values(final.participants)) {
    const row: (string | number | null)[] = [p.nickname + (p.removed ? " (removed)" : "")];
    for (const r of rounds) {
      const choice = r.votes[p.id];
      row.push(choice ? (r.options.find((o) => o.id === choice)?.text ?? choice) : "");
      row.push(!choice || r.correctOptionId === null ? "" : choice === r.correctOptionId ? "yes" : "no");
    }
    rows.push(row);
  }
  return toCsv(rows);
}

/** One row per question; the teacher's copy (`named`) says who asked the named ones. */
export function questionCsv(events: readonly SessionEvent[], named: boolean): string {
  return toCsv(questionRows(events, named));
}

/** What a saved-session read produces: the replay's log, or one of the downloads. */
export type ExportKind = "events" | "json" | "pollCsv" | "studentCsv" | "questionCsv";

/**
 * The body of a read, from the full log: `shared` reads get `shareableLog`.
 * One pure function, so the server can run it off the event loop (a big log
 * takes tens of milliseconds to fold and serialise).
 */
export function renderExport(events: readonly SessionEvent[], kind: ExportKind, access: "admin" | "host" | "viewer"): string {
  const visible = access === "viewer" ? shareableLog(events) : events;
  switch (kind) {
    case "events":
      return JSON.stringify({ access, events: visible });
    case "json":
      return JSON.stringify(exportLog(visible), null, 2);
    case "pollCsv":
      return pollCsv(visible);
    case "studentCsv":
      return studentCsv(visible);
    case "questionCsv":
      // Names only in the teacher's (and the admin's) copy; a shared link's sheet names nobody.
      return questionCsv(visible, access !== "viewer");
    default: {
      const never: never = kind;
      throw new Error(`unknown export ${String(never)}`);
    }
  }
}
