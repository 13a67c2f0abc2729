import { describe, expect, it } from "vitest";
import type { AssignmentAnswer, AssignmentStudent } from "../../lib/course/types";
import { hashSecret, newId } from "../../server/secrets";
import { MAX_ASSIGNMENT_FIELD_CHARS } from "../../server/store/assignmentsSchema";
import { StoreError } from "../../server/store/types";
import { assignment, assignmentStoresUnderTest, student } from "./storeContractAssignmentsStores";
import { T0 } from "./storeContractStores";

/**
 * The assignment store's contract (server/store/assignments.ts), on the SQLite
 * file and on Redis alike, each opened as the server opens it
 * (openAssignmentStore beside the session store). The REST rules around it
 * (who may read what, closed and past-due assignments) are the API's tests.
 */
const stores = assignmentStoresUnderTest();

const roomy = { maxStudents: 100, maxPerAddress: 100 };

describe.each(stores)("the assignment store on $name", ({ open }) => {
  it("creates an assignment and reads it back whole; a missing id reads null", async () => {
    const { store } = await open();
    const a = assignment("acct-1", T0, { dueAt: T0 + 86_400_000, requireNickname: true });
    await store.create(a);
    expect(await store.get(a.id)).toEqual(a);
    expect(await store.get(newId())).toBeNull();
    expect(await store.studentByToken(newId(), hashSecret("x"))).toBeNull();
    expect(await store.students(newId())).toEqual([]);
    expect(await store.answers(newId())).toEqual([]);
    expect(await store.answersOf(newId(), newId())).toEqual([]);
    await expect(store.create(a)).rejects.toThrow(StoreError);
  });

  it("lists an account's assignments newest first and counts them", async () => {
    const { store } = await open();
    const [older, newer, newest] = [assignment("acct-1", T0), assignment("acct-1", T0 + 5_000), assignment("acct-1", T0 + 9_000)];
    const theirs = assignment("acct-2", T0 + 7_000);
    for (const a of [newer, older, theirs, newest]) await store.create(a);
    expect((await store.listByOwner("acct-1")).map((a) => a.id)).toEqual([newest.id, newer.id, older.id]);
    expect(await store.listByOwner("acct-2")).toEqual([theirs]);
    expect(await store.countByOwner("acct-1")).toBe(3);
    expect(await store.countByOwner("acct-3")).toBe(0);
    expect(await store.listByOwner("acct-3")).toEqual([]);
  });

  it("closes and reopens, sets and clears the due date, and leaves a missing id missing", async () => {
    const { store } = await open();
    const a = assignment("acct-1");
    await store.create(a);
    await store.setClosed(a.id, T0 + 60_000);
    await store.setDue(a.id, T0 + 120_000);
    expect(await store.get(a.id)).toEqual({ ...a, closedAt: T0 + 60_000, dueAt: T0 + 120_000 });
    expect((await store.listByOwner("acct-1"))[0]).toMatchObject({ closedAt: T0 + 60_000, dueAt: T0 + 120_000 });
    await store.setClosed(a.id, null);
    await store.setDue(a.id, null);
    expect(await store.get(a.id)).toEqual(a);
    const ghost = newId();
    await store.setClosed(ghost, T0);
    await store.setDue(ghost, T0);
    expect(await store.get(ghost)).toBeNull();
  });

  it("adds students up to the assignment's size and each address's allowance, and finds them by token", async () => {
    const { store } = await open();
    const a = assignment("acct-1");
    await store.create(a);
    const limits = { maxStudents: 3, maxPerAddress: 2 };
    const first = student(a.id, { address: "10.0.0.1", startedAt: T0 + 2_000 });
    const second = student(a.id, { address: "10.0.0.1", startedAt: T0 + 1_000 });
    expect(await store.addStudent(first, limits)).toEqual({ ok: true });
    expect(await store.addStudent(second, limits)).toEqual({ ok: true });
    expect(await store.addStudent(student(a.id, { address: "10.0.0.1" }), limits)).toEqual({ ok: false, reason: "ADDRESS_FULL" });
    const third = student(a.id, { address: "10.0.0.2", startedAt: T0 + 3_000 });
    expect(await store.addStudent(third, limits)).toEqual({ ok: true });
    expect(await store.addStudent(student(a.id, { address: "10.0.0.3" }), limits)).toEqual({ ok: false, reason: "FULL" });

    expect(await store.studentByToken(a.id, first.tokenHash)).toEqual(first);
    expect(await store.studentByToken(a.id, hashSecret("someone else"))).toBeNull();
    // A token opens its own assignment only.
    const other = assignment("acct-1");
    await store.create(other);
    expect(await store.studentByToken(other.id, first.tokenHash)).toBeNull();
    // In the order they started, not the order they were added.
    expect(await store.students(a.id)).toEqual([second, first, third]);
    // The same identity twice is a bug in the caller, not a second student.
    await expect(store.addStudent({ ...student(a.id), tokenHash: first.tokenHash }, roomy)).rejects.toThrow(StoreError);
    await expect(store.addStudent(student(newId()), roomy)).rejects.toThrow(StoreError);
    expect(await store.students(a.id)).toHaveLength(3);
  });

  it("admits exactly maxStudents of 50 students arriving at once", async () => {
    const { store } = await open();
    const a = assignment("acct-1");
    await store.create(a);
    const arrivals = Array.from({ length: 50 }, (_, i) => student(a.id, { address: `10.0.${i % 5}.1`, startedAt: T0 + i }));
    const results = await Promise.all(arrivals.map((s) => store.addStudent(s, { maxStudents: 10, maxPerAddress: 50 })));
    expect(results.filter((r) => r.ok)).toHaveLength(10);
    expect(results.filter((r) => !r.ok && r.reason === "FULL")).toHaveLength(40);
    expect(await store.students(a.id)).toHaveLength(10);
    // And the per-address allowance holds under the same storm.
    const b = assignment("acct-1");
    await store.create(b);
    const same = Array.from({ length: 50 }, () => student(b.id, { address: "10.9.9.9" }));
    const admitted = await Promise.all(same.map((s) => store.addStudent(s, { maxStudents: 100, maxPerAddress: 7 })));
    expect(admitted.filter((r) => r.ok)).toHaveLength(7);
    expect(await store.students(b.id)).toHaveLength(7);
  });

  it("records a student's progress, and ignores a student it does not hold", async () => {
    const { store } = await open();
    const a = assignment("acct-1");
    await store.create(a);
    const s = student(a.id);
    await store.addStudent(s, roomy);
    await store.setProgress(a.id, s.id, { stepIndex: 4, furthestStep: 6, finishedAt: null, updatedAt: T0 + 9_000 });
    const moved = { ...s, stepIndex: 4, furthestStep: 6, updatedAt: T0 + 9_000 };
    expect(await store.studentByToken(a.id, s.tokenHash)).toEqual(moved);
    await store.setProgress(a.id, s.id, { stepIndex: 11, furthestStep: 11, finishedAt: T0 + 20_000, updatedAt: T0 + 20_000 });
    expect(await store.students(a.id)).toEqual([
      { ...s, stepIndex: 11, furthestStep: 11, finishedAt: T0 + 20_000, updatedAt: T0 + 20_000 },
    ]);
    await store.setProgress(a.id, newId(), { stepIndex: 1, furthestStep: 1, finishedAt: null, updatedAt: T0 });
    await store.setProgress(newId(), s.id, { stepIndex: 1, furthestStep: 1, finishedAt: null, updatedAt: T0 });
    expect(await store.students(a.id)).toHaveLength(1);
  });

  it("keeps a student's first answer to a poll: later ones change nothing and read the first back", async () => {
    const { store } = await open();
    const a = assignment("acct-1");
    await store.create(a);
    const s = student(a.id);
    await store.addStudent(s, roomy);
    const first: AssignmentAnswer = { assignmentId: a.id, studentId: s.id, pollId: "p1", optionId: "b", at: T0 + 5_000 };
    expect(await store.answer(first)).toEqual({ answer: first, created: true });
    expect(await store.answer({ ...first, optionId: "a", at: T0 + 6_000 })).toEqual({ answer: first, created: false });
    expect(await store.answers(a.id)).toEqual([first]);
    await expect(store.answer({ ...first, assignmentId: newId() })).rejects.toThrow(StoreError);
  });

  it("lets exactly one of several answers given at once be the student's answer", async () => {
    const { store } = await open();
    const a = assignment("acct-1");
    await store.create(a);
    const s = student(a.id);
    await store.addStudent(s, roomy);
    const tries = Array.from({ length: 20 }, (_, i) => ({
      assignmentId: a.id,
      studentId: s.id,
      pollId: "p1",
      optionId: i % 2 === 0 ? "a" : "b",
      at: T0 + i,
    }));
    const results = await Promise.all(tries.map((t) => store.answer(t)));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const inForce = results.find((r) => r.created)!.answer;
    for (const r of results) expect(r.answer).toEqual(inForce);
    expect(await store.answers(a.id)).toEqual([inForce]);
  });

  it("lists answers oldest first, and one student's alone", async () => {
    const { store } = await open();
    const a = assignment("acct-1");
    await store.create(a);
    const [ana, bo] = [student(a.id), student(a.id, { address: "10.0.0.2" })];
    await store.addStudent(ana, roomy);
    await store.addStudent(bo, roomy);
    const answer = (s: AssignmentStudent, pollId: string, optionId: string, at: number): AssignmentAnswer => ({
      assignmentId: a.id,
      studentId: s.id,
      pollId,
      optionId,
      at,
    });
    const given = [answer(bo, "p2", "a", T0 + 9_000), answer(ana, "p1", "a", T0 + 3_000), answer(bo, "p1", "b", T0 + 4_000)];
    given.push(answer(ana, "p2", "b", T0 + 7_000));
    for (const g of given) await store.answer(g);
    expect(await store.answers(a.id)).toEqual([given[1], given[2], given[3], given[0]]);
    expect(await store.answersOf(a.id, ana.id)).toEqual([given[1], given[3]]);
    expect(await store.answersOf(a.id, bo.id)).toEqual([given[2], given[0]]);
    expect(await store.answersOf(a.id, newId())).toEqual([]);
  });

  it("removes an assignment with its students and answers, and no other", async () => {
    const { store, leftovers } = await open();
    const [gone, kept] = [assignment("acct-1", T0), assignment("acct-1", T0 + 1_000)];
    await store.create(gone);
    await store.create(kept);
    for (const a of [gone, kept]) {
      const s = student(a.id);
      await store.addStudent(s, { maxStudents: 1, maxPerAddress: 1 });
      await store.answer({ assignmentId: a.id, studentId: s.id, pollId: "p1", optionId: "a", at: T0 + 2_000 });
    }
    const goneStudent = (await store.students(gone.id))[0];
    await store.setProgress(gone.id, goneStudent.id, { stepIndex: 1, furthestStep: 1, finishedAt: null, updatedAt: T0 + 3_000 });
    expect(await leftovers(gone.id)).toBeGreaterThan(0);
    await store.remove(gone.id);
    expect(await leftovers(gone.id)).toBe(0);
    expect(await store.get(gone.id)).toBeNull();
    expect(await store.listByOwner("acct-1")).toEqual([kept]);
    expect(await store.countByOwner("acct-1")).toBe(1);
    expect(await store.students(gone.id)).toEqual([]);
    expect(await store.studentByToken(gone.id, goneStudent.tokenHash)).toBeNull();
    expect(await store.answers(gone.id)).toEqual([]);
    expect(await store.answersOf(gone.id, goneStudent.id)).toEqual([]);
    expect(await store.students(kept.id)).toHaveLength(1);
    expect(await store.answers(kept.id)).toHaveLength(1);
    // The same id made again starts empty: no count or allowance left behind.
    await store.create(gone);
    expect(await store.addStudent(student(gone.id), { maxStudents: 1, maxPerAddress: 1 })).toEqual({ ok: true });
    await store.remove(newId());
  });

  it("refuses oversized fields instead of storing them", async () => {
    const { store } = await open();
    const a = assignment("acct-1");
    await store.create(a);
    const long = "x".repeat(MAX_ASSIGNMENT_FIELD_CHARS + 1);
    await expect(store.addStudent(student(a.id, { nickname: long }), roomy)).rejects.toThrow(StoreError);
    const s = student(a.id);
    await store.addStudent(s, roomy);
    await expect(store.answer({ assignmentId: a.id, studentId: s.id, pollId: long, optionId: "a", at: T0 })).rejects.toThrow(StoreError);
    expect(await store.answers(a.id)).toEqual([]);
    await expect(store.create(assignment("acct-1", T0, { title: "t".repeat(2 * 1024 * 1024) }))).rejects.toThrow(StoreError);
    expect(await store.countByOwner("acct-1")).toBe(1);
  });

  it("has every write committed when its promise resolves, and keeps everything across a restart", async () => {
    const opened = await open();
    const a = assignment("acct-1");
    await opened.store.create(a);
    await opened.store.setClosed(a.id, T0 + 50_000);
    const s = student(a.id);
    await opened.store.addStudent(s, roomy);
    await opened.store.setProgress(a.id, s.id, { stepIndex: 3, furthestStep: 3, finishedAt: null, updatedAt: T0 + 4_000 });
    const given: AssignmentAnswer = { assignmentId: a.id, studentId: s.id, pollId: "p1", optionId: "a", at: T0 + 4_000 };
    await opened.store.answer(given);
    const other = (await opened.alongside()).store;
    expect(await other.answers(a.id)).toEqual([given]);
    expect(await other.studentByToken(a.id, s.tokenHash)).toMatchObject({ stepIndex: 3 });
    const { store } = await opened.reopen();
    expect(await store.get(a.id)).toEqual({ ...a, closedAt: T0 + 50_000 });
    expect(await store.students(a.id)).toEqual([{ ...s, stepIndex: 3, furthestStep: 3, updatedAt: T0 + 4_000 }]);
    expect(await store.answers(a.id)).toEqual([given]);
    expect(await store.answer({ ...given, optionId: "b" })).toEqual({ answer: given, created: false });
  });
});
