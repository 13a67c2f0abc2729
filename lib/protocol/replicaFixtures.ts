import { replay } from "../session/reducer";
import type { ClassQuestion } from "../session/questions";
import type { SessionEvent, SessionEventBody, SessionState } from "../session/types";
import type { PatchOf, StreamName } from "../session/projection";

/** A small class, patches by hand and questions by hand: what the replica's tests build on. */

export const T0 = 1_700_000_000_000;
export const A = "instance-a";
export const B = "instance-b";

export function run(bodies: readonly SessionEventBody[]): SessionState {
  const log: SessionEvent[] = bodies.map((body, i) => ({ ...body, seq: i + 1, at: T0 + (i + 1) * 1000 }));
  return replay(log);
}

export const OPTIONS = [
  { id: "o1", text: "The provisioner creates the disk", note: "Not yet." },
  { id: "o2", text: "The scheduler writes selected-node", note: "Right." },
];
export const CLASS: SessionEventBody[] = [
  { type: "session:created", id: "s1", code: "KUBE42", title: "Dynamic provisioning" },
  { type: "participant:joined", participantId: "p1", nickname: "Ada" },
  { type: "participant:joined", participantId: "p2", nickname: "Linus" },
];
export const OPEN: SessionEventBody = {
  type: "poll:opened",
  poll: { id: "q1", kind: "next-step", question: "What next?", options: OPTIONS, correctOptionId: "o2" },
  closesAt: null,
};
export const vote = (participantId: string, optionId: string): SessionEventBody => ({
  type: "poll:voted",
  pollId: "q1",
  participantId,
  optionId,
});

export const nobody = { connectedCount: 0, isConnected: () => false };

/** A patch of one stream; `whole` ones are at `to` (from = to). */
export function patch<S extends StreamName>(
  stream: S,
  from: number,
  to: number,
  body: { put?: PatchOf<S>["put"]; del?: PatchOf<S>["del"]; whole?: true; volatile?: true; instance?: string } = {},
): PatchOf<S> {
  const { instance = A, ...rest } = body;
  return { stream, instance, from, to, ...rest };
}

/** A class question as the projection makes it, by hand (the replica does not look inside records). */
export function question(id: string, askedAt: number, extra: Partial<ClassQuestion> = {}): ClassQuestion {
  return {
    id,
    text: `question ${id}`,
    target: { kind: "step", stepIndex: 0 },
    mode: "WaitForFirstConsumer",
    variant: "standard",
    status: "open",
    votes: 0,
    askedAt,
    by: null,
    ...extra,
  };
}

export const ids = (questions: readonly { id: string }[] | undefined) => (questions ?? []).map((q) => q.id);
