import { DEFAULT_CLUSTER_PRESENCE_STALE_MS } from "../../lib/constants";
import { replay, toHostSnapshot, toPublicSnapshot, type SessionEvent } from "../../lib/session";
import type { ChaosClient } from "./client";
import type { Classroom } from "./classroom";

/**
 * The end of a run, once every fault is healed: everyone comes back, each
 * teacher finishes (closes an open poll, moves to a new step: a command that
 * must now simply work), and every screen must converge on the saved log
 * (docs/protocol.md: a screen that missed something sees a gap at the next
 * patch and resyncs; a new room instance starts whole).
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How long the healed fleet gets to take every screen back. */
export const RECONNECT_ALL_MS = 60_000;
/** How long a teacher's last commands may keep failing after the heal (a node still loading, a lease being renewed). */
const FINISH_MS = 45_000;
/** How long screens get to show the final state. */
const CONVERGE_MS = 20_000;

async function until(predicate: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > end) return false;
    await sleep(100);
  }
  return true;
}

/** Everyone back, and the teacher's closing commands through. Returns what went wrong. */
export async function finish(c: Classroom): Promise<string[]> {
  const problems: string[] = [];
  void c.rejoinAll();
  const all = await until(() => c.present().every((s) => s.connected), RECONNECT_ALL_MS);
  if (!all) {
    const missing = c.present().filter((s) => !s.connected);
    problems.push(
      `class ${c.plan.cls}: ${missing.map((s) => s.name).join(", ")} not connected ${RECONNECT_ALL_MS / 1000} s after the heal`,
    );
  }
  const t = c.teacher;
  const end = Date.now() + FINISH_MS;
  // Close an open poll (a countdown may beat us to it), then move: both must simply work now.
  for (;;) {
    const poll = t.snapshot()?.poll;
    if (poll?.status !== "open") break;
    const op = await t.send("poll:close", { pollId: poll.id });
    if (op.reported?.code === "ok" || op.reported?.code === "POLL_CLOSED") break;
    if (Date.now() > end) {
      problems.push(`class ${c.plan.cls}: the teacher could not close the poll after the heal (${op.reported?.code})`);
      break;
    }
    await sleep(1_000);
  }
  for (;;) {
    const s = t.snapshot();
    const op = await t.send("step:go", { stepIndex: s && s.stepIndex === 1 ? 2 : 1 });
    if (op.reported?.code === "ok") break;
    if (Date.now() > end) {
      problems.push(`class ${c.plan.cls}: the teacher's step after the heal kept failing (${op.reported?.code})`);
      break;
    }
    await sleep(1_000);
  }
  await Promise.all(c.everyone().map((s) => s.drained(10_000)));
  return problems;
}

function shows(client: ChaosClient, events: readonly SessionEvent[]): string | null {
  const state = replay(events);
  const snap = client.snapshot();
  if (!snap) return "no snapshot";
  const want =
    snap.audience === "host" ? toHostSnapshot(state, { isConnected: () => false, connectedCount: 0 }) : toPublicSnapshot(state, 0);
  const pick = (s: typeof snap) => ({
    stepIndex: s.stepIndex,
    mode: s.mode,
    variant: s.variant,
    status: s.status,
    poll: s.poll && { id: s.poll.id, status: s.poll.status, round: s.poll.round, results: s.poll.results?.counts ?? null },
  });
  const [got, expected] = [JSON.stringify(pick(snap)), JSON.stringify(pick(want))];
  if (got !== expected) return `shows ${got}, the log says ${expected}`;
  const active = state.activePollId ? state.polls[state.activePollId] : null;
  if (client.o.role === "student" && active && client.participantId) {
    const mine = client.myVote();
    const shown = mine?.pollId === active.id && mine.round === active.round ? mine.optionId : null;
    const inForce = active.votes[client.participantId] ?? null;
    if (shown !== inForce) return `shows its vote as ${shown ?? "none"}, the log has ${inForce ?? "none"}`;
  }
  return null;
}

/** Every screen of the class shows what the log says, and the teacher counts the students connected. */
export async function converge(c: Classroom, events: readonly SessionEvent[]): Promise<string[]> {
  const problems: string[] = [];
  const screens = c.present();
  await until(() => screens.every((s) => shows(s, events) === null), CONVERGE_MS);
  for (const s of screens) {
    const wrong = shows(s, events);
    if (wrong) problems.push(`class ${c.plan.cls}: ${s.name} (node ${s.node}) ${wrong} ${CONVERGE_MS / 1000} s after the last command`);
  }
  // A dead node's figure counts until it is stale: the count settles within that.
  const students = new Set(screens.filter((s) => s.o.role === "student").map((s) => s.participantId)).size;
  const counted = () => c.teacher.snapshot()?.participantCount;
  if (!(await until(() => counted() === students, DEFAULT_CLUSTER_PRESENCE_STALE_MS + 10_000)))
    problems.push(`class ${c.plan.cls}: the teacher counts ${counted()} students, ${students} are connected`);
  return problems;
}
