import { expect } from "vitest";
import { replay, reduce } from "../../lib/session/reducer";
import type { Poll, SessionEvent, SessionEventBody, SessionState } from "../../lib/session/types";

/**
 * Fixtures for the reducer's tests (lib/session/reducer*.test.ts): a fixed
 * clock, events stamped as the server stamps them, and a small class with its
 * polls.
 */

// Server time is stamped onto events; tests use a fixed clock so states compare exactly.
const T0 = 1_700_000_000_000;
export const atOf = (seq: number) => T0 + seq * 1000;

/** Stamp bodies as the server would: seq 1.., gapless, one second apart. */
export function stamp(bodies: readonly SessionEventBody[], firstSeq = 1): SessionEvent[] {
  return bodies.map((body, i) => ({ ...body, seq: firstSeq + i, at: atOf(firstSeq + i) }));
}

export const run = (bodies: readonly SessionEventBody[]): SessionState => replay(stamp(bodies));

/**
 * Fold `more` on top of the state `before` reached, continuing its sequence numbers. The tests import it as
 * `then`; exported under that name it would make this module a thenable, and awaiting its import would call it.
 */
export function foldMore(before: SessionState, more: readonly SessionEventBody[]): SessionState {
  return stamp(more, before.seq + 1).reduce(reduce, before);
}

/** The state is unchanged apart from the sequence number and clock. */
export function expectIgnored(before: SessionState, body: SessionEventBody): void {
  const after = foldMore(before, [body]);
  expect(after).toEqual({ ...before, seq: before.seq + 1, lastEventAt: atOf(before.seq + 1) });
}

export const CREATED: SessionEventBody = { type: "session:created", id: "s1", code: "KUBE42", title: "Dynamic provisioning" };
export const join = (participantId: string, nickname = participantId.toUpperCase()): SessionEventBody => ({
  type: "participant:joined",
  participantId,
  nickname,
});
export const step = (stepIndex: number): SessionEventBody => ({ type: "step:changed", stepIndex });
export const vote = (participantId: string, optionId: string, pollId = "q1"): SessionEventBody => ({
  type: "poll:voted",
  pollId,
  participantId,
  optionId,
});

export const Q1: Extract<SessionEventBody, { type: "poll:opened" }> = {
  type: "poll:opened",
  poll: {
    id: "q1",
    kind: "next-step",
    question: "What happens after PICK NODE?",
    options: [
      { id: "o1", text: "The provisioner creates the disk", note: "Not yet: the scheduler has to record its choice first." },
      { id: "o2", text: "The scheduler writes selected-node", note: "Right: PreBind annotates the PVC." },
      { id: "o3", text: "The kubelet mounts the volume" },
    ],
    correctOptionId: "o2",
  },
  closesAt: null,
};
export const openQ2: Extract<SessionEventBody, { type: "poll:opened" }> = {
  type: "poll:opened",
  poll: {
    id: "q2",
    kind: "custom",
    question: "Who creates the PV?",
    options: [
      { id: "o1", text: "external-provisioner" },
      { id: "o2", text: "kubelet" },
    ],
    correctOptionId: "o1",
  },
  closesAt: atOf(99),
};
export const close = (pollId: string, counts: Record<string, number>, total: number): SessionEventBody => ({
  type: "poll:closed",
  pollId,
  counts,
  total,
});

/** A live session with three students at step index 3 (label 4, PICK NODE) of WaitForFirstConsumer. */
export const CLASS: SessionEventBody[] = [CREATED, join("p1"), join("p2"), join("p3"), step(3)];

export function pollOf(state: SessionState, id = "q1"): Poll {
  const poll = state.polls[id];
  if (!poll) throw new Error(`no poll ${id}`);
  return poll;
}

/** Deep-freeze so any in-place write in the reducer throws (ES modules are strict). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
