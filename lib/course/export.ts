import { toCsv } from "../session/export";
import type { Assignment, AssignmentAnswer, AssignmentStudent } from "./types";

/**
 * One assignment's answers as a spreadsheet, like a session's students sheet:
 * a row per student with their progress and, per question, the answer they
 * gave and whether it was right. For the teacher only (it names students).
 */
export function assignmentCsv(a: Assignment, students: readonly AssignmentStudent[], given: readonly AssignmentAnswer[]): string {
  const header = ["student", "started", "step reached", "finished", "right"];
  for (const p of a.polls) header.push(`step ${p.stepIndex + 1}: ${p.question}`, "right?");
  const rows: (string | number | null)[][] = [header];
  for (const s of students) {
    const own = new Map(given.filter((g) => g.studentId === s.id).map((g) => [g.pollId, g.optionId]));
    let right = 0;
    const cells: (string | number)[] = [];
    for (const p of a.polls) {
      const chosen = own.get(p.id);
      const text = chosen ? (p.options.find((o) => o.id === chosen)?.text ?? "") : "";
      const correct = chosen === undefined || p.correctOptionId === null ? "" : chosen === p.correctOptionId ? "yes" : "no";
      if (correct === "yes") right++;
      cells.push(text, correct);
    }
    rows.push([
      s.nickname || "(no nickname)",
      new Date(s.startedAt).toISOString(),
      s.furthestStep + 1,
      s.finishedAt === null ? "" : new Date(s.finishedAt).toISOString(),
      right,
      ...cells,
    ]);
  }
  return toCsv(rows);
}
