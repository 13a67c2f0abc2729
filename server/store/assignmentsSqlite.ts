import Database from "better-sqlite3";
import type { Assignment, AssignmentAnswer, AssignmentStudent } from "../../lib/course/types";
import type { AddStudentLimits, AddStudentRefusal, AssignmentStore } from "./assignments";
import { assignmentJson, checkAnswer, checkStudent, migrateAssignments, storedAssignment } from "./assignmentsSchema";
import { StoreError } from "./types";

interface AssignmentRow {
  id: string;
  owner_account_id: string;
  created_at: number;
  due_at: number | null;
  closed_at: number | null;
  body: string;
}

interface StudentRow {
  assignment_id: string;
  id: string;
  token_hash: string;
  address: string;
  nickname: string;
  started_at: number;
  step_index: number;
  furthest_step: number;
  finished_at: number | null;
  updated_at: number;
}

interface AnswerRow {
  assignment_id: string;
  student_id: string;
  poll_id: string;
  option_id: string;
  at: number;
}

const toAssignment = (r: AssignmentRow): Assignment =>
  storedAssignment(r.body, {
    id: r.id,
    ownerAccountId: r.owner_account_id,
    createdAt: r.created_at,
    dueAt: r.due_at,
    closedAt: r.closed_at,
  });

const toStudent = (r: StudentRow): AssignmentStudent => ({
  id: r.id,
  assignmentId: r.assignment_id,
  tokenHash: r.token_hash,
  nickname: r.nickname,
  address: r.address,
  startedAt: r.started_at,
  stepIndex: r.step_index,
  furthestStep: r.furthest_step,
  finishedAt: r.finished_at,
  updatedAt: r.updated_at,
});

const toAnswer = (r: AnswerRow): AssignmentAnswer => ({
  assignmentId: r.assignment_id,
  studentId: r.student_id,
  pollId: r.poll_id,
  optionId: r.option_id,
  at: r.at,
});

type AddStudentResult = { ok: true } | { ok: false; reason: AddStudentRefusal };

/**
 * The embedded default: tables in the session database file on a connection
 * of their own (WAL lets it write beside the session store's), created and
 * versioned by assignmentsSchema.ts. better-sqlite3 commits before a method
 * returns, so every write is on disk (WAL, `synchronous = NORMAL`: a process
 * crash loses nothing committed) when its promise resolves, as the answers'
 * acknowledgement to students requires.
 *
 * Orders match the Redis store's (ties broken by id, as a sorted set breaks
 * them), so the contract tests read the same lists from both.
 */
export class SqliteAssignmentStore implements AssignmentStore {
  private readonly db: Database.Database;
  private readonly stmts;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma("busy_timeout = 5000");
    try {
      migrateAssignments(this.db);
    } catch (err) {
      this.db.close();
      throw err;
    }
    const db = this.db;
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO assignments (id, owner_account_id, created_at, due_at, closed_at, body) VALUES (@id, @owner, @createdAt, @dueAt, @closedAt, @body)`,
      ),
      get: db.prepare<[string], AssignmentRow>(`SELECT * FROM assignments WHERE id = ?`),
      exists: db.prepare<[string], { one: number }>(`SELECT 1 AS one FROM assignments WHERE id = ?`),
      byOwner: db.prepare<[string], AssignmentRow>(
        `SELECT * FROM assignments WHERE owner_account_id = ? ORDER BY created_at DESC, id DESC`,
      ),
      countByOwner: db.prepare<[string], { n: number }>(`SELECT COUNT(*) AS n FROM assignments WHERE owner_account_id = ?`),
      setClosed: db.prepare(`UPDATE assignments SET closed_at = ? WHERE id = ?`),
      setDue: db.prepare(`UPDATE assignments SET due_at = ? WHERE id = ?`),
      removeAnswers: db.prepare(`DELETE FROM assignment_answers WHERE assignment_id = ?`),
      removeStudents: db.prepare(`DELETE FROM assignment_students WHERE assignment_id = ?`),
      removeAssignment: db.prepare(`DELETE FROM assignments WHERE id = ?`),
      countStudents: db.prepare<[string], { n: number }>(`SELECT COUNT(*) AS n FROM assignment_students WHERE assignment_id = ?`),
      countAtAddress: db.prepare<[string, string], { n: number }>(
        `SELECT COUNT(*) AS n FROM assignment_students WHERE assignment_id = ? AND address = ?`,
      ),
      insertStudent: db.prepare(
        `INSERT INTO assignment_students
           (assignment_id, id, token_hash, address, nickname, started_at, step_index, furthest_step, finished_at, updated_at)
         VALUES (@assignmentId, @id, @tokenHash, @address, @nickname, @startedAt, @stepIndex, @furthestStep, @finishedAt, @updatedAt)`,
      ),
      studentByToken: db.prepare<[string, string], StudentRow>(
        `SELECT * FROM assignment_students WHERE assignment_id = ? AND token_hash = ?`,
      ),
      students: db.prepare<[string], StudentRow>(`SELECT * FROM assignment_students WHERE assignment_id = ? ORDER BY started_at, id`),
      setProgress: db.prepare(
        `UPDATE assignment_students SET step_index = ?, furthest_step = ?, finished_at = ?, updated_at = ? WHERE assignment_id = ? AND id = ?`,
      ),
      insertAnswer: db.prepare(
        `INSERT OR IGNORE INTO assignment_answers (assignment_id, student_id, poll_id, option_id, at)
         VALUES (@assignmentId, @studentId, @pollId, @optionId, @at)`,
      ),
      answer: db.prepare<[string, string, string], AnswerRow>(
        `SELECT * FROM assignment_answers WHERE assignment_id = ? AND student_id = ? AND poll_id = ?`,
      ),
      answers: db.prepare<[string], AnswerRow>(
        `SELECT * FROM assignment_answers WHERE assignment_id = ? ORDER BY at, student_id || ':' || poll_id`,
      ),
      answersOf: db.prepare<[string, string], AnswerRow>(
        `SELECT * FROM assignment_answers WHERE assignment_id = ? AND student_id = ? ORDER BY at, poll_id`,
      ),
    };
  }

  private mustExist(id: string): void {
    if (!this.stmts.exists.get(id)) throw new StoreError(`assignment ${id} does not exist`);
  }

  async create(a: Assignment): Promise<void> {
    const body = assignmentJson(a);
    try {
      this.stmts.insert.run({ id: a.id, owner: a.ownerAccountId, createdAt: a.createdAt, dueAt: a.dueAt, closedAt: a.closedAt, body });
    } catch (err) {
      if (err instanceof Database.SqliteError && err.code === "SQLITE_CONSTRAINT_PRIMARYKEY")
        throw new StoreError(`assignment ${a.id} exists already`);
      throw err;
    }
  }

  async get(id: string): Promise<Assignment | null> {
    const row = this.stmts.get.get(id);
    return row ? toAssignment(row) : null;
  }

  async listByOwner(accountId: string): Promise<Assignment[]> {
    return this.stmts.byOwner.all(accountId).map(toAssignment);
  }

  async countByOwner(accountId: string): Promise<number> {
    return this.stmts.countByOwner.get(accountId)!.n;
  }

  async setClosed(id: string, closedAt: number | null): Promise<void> {
    this.stmts.setClosed.run(closedAt, id);
  }

  async setDue(id: string, dueAt: number | null): Promise<void> {
    this.stmts.setDue.run(dueAt, id);
  }

  async remove(id: string): Promise<void> {
    this.db.transaction(() => {
      this.stmts.removeAnswers.run(id);
      this.stmts.removeStudents.run(id);
      this.stmts.removeAssignment.run(id);
    })();
  }

  async addStudent(student: AssignmentStudent, limits: AddStudentLimits): Promise<AddStudentResult> {
    checkStudent(student);
    // IMMEDIATE takes the write lock before counting: another connection cannot add between the count and the insert.
    return this.db
      .transaction((): AddStudentResult => {
        const id = student.assignmentId;
        this.mustExist(id);
        if (this.stmts.countStudents.get(id)!.n >= limits.maxStudents) return { ok: false, reason: "FULL" };
        if (this.stmts.countAtAddress.get(id, student.address)!.n >= limits.maxPerAddress) return { ok: false, reason: "ADDRESS_FULL" };
        try {
          this.stmts.insertStudent.run(student);
        } catch (err) {
          if (err instanceof Database.SqliteError && err.code.startsWith("SQLITE_CONSTRAINT"))
            throw new StoreError(`assignment ${id}: the student or their token exists already`);
          throw err;
        }
        return { ok: true };
      })
      .immediate();
  }

  async studentByToken(assignmentId: string, tokenHash: string): Promise<AssignmentStudent | null> {
    const row = this.stmts.studentByToken.get(assignmentId, tokenHash);
    return row ? toStudent(row) : null;
  }

  async students(assignmentId: string): Promise<AssignmentStudent[]> {
    return this.stmts.students.all(assignmentId).map(toStudent);
  }

  async setProgress(
    assignmentId: string,
    studentId: string,
    p: Pick<AssignmentStudent, "stepIndex" | "furthestStep" | "finishedAt" | "updatedAt">,
  ): Promise<void> {
    this.stmts.setProgress.run(p.stepIndex, p.furthestStep, p.finishedAt, p.updatedAt, assignmentId, studentId);
  }

  async answer(answer: AssignmentAnswer): Promise<{ answer: AssignmentAnswer; created: boolean }> {
    checkAnswer(answer);
    return this.db
      .transaction(() => {
        // An answer outliving its assignment (removed a moment before) would be a row nothing ever deletes.
        this.mustExist(answer.assignmentId);
        const created = this.stmts.insertAnswer.run(answer).changes === 1;
        const row = this.stmts.answer.get(answer.assignmentId, answer.studentId, answer.pollId)!;
        return { answer: toAnswer(row), created };
      })
      .immediate();
  }

  async answers(assignmentId: string): Promise<AssignmentAnswer[]> {
    return this.stmts.answers.all(assignmentId).map(toAnswer);
  }

  async answersOf(assignmentId: string, studentId: string): Promise<AssignmentAnswer[]> {
    return this.stmts.answersOf.all(assignmentId, studentId).map(toAnswer);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
