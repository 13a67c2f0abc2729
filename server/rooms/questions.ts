import { QUESTION_BROADCAST_INTERVAL_MS } from "../../lib/constants";
import type { MyUpvote } from "../../lib/protocol";
import {
  classQuestionList,
  classViewFor,
  hostQuestionList,
  own,
  toClassQuestion,
  toHostQuestion,
  type ClassQuestion,
  type HostQuestion,
  type QuestionChanges,
  type QuestionList,
  type SessionEventBody,
  type SessionState,
} from "../../lib/session";
import { questionVisible } from "../../lib/session/rules";
import { LeadingEdgeThrottle } from "./throttle";

/** Where a room's question messages go (part of the room's outbox). */
export interface QuestionOutbox {
  /** The teachers' sockets ("host") or the class, projectors included ("public"): one batch of changes. */
  questionChanges: (changes: QuestionChanges) => void;
  /** One participant's sockets: their own question while the class cannot see it (waiting for approval, or gone). */
  questionChangesFor: (participantId: string, changes: QuestionChanges) => void;
  /** One participant's sockets: their upvote changed (their other tabs follow). */
  myUpvote: (participantId: string, upvote: MyUpvote) => void;
  /** The teachers' sockets: how many students are looking back at an earlier step (presence, coalesced). */
  lookingBack: (count: number) => void;
}

/** An outbox part that sends nothing: for rooms whose question messages nobody listens to (unit tests, tools). */
export const silentQuestionOutbox: QuestionOutbox = {
  questionChanges: () => undefined,
  questionChangesFor: () => undefined,
  myUpvote: () => undefined,
  lookingBack: () => undefined,
};

/**
 * A room's questions channel. Questions never ride in the snapshots that go
 * to the whole class on every step: each socket gets the list once (join,
 * resync), then changed questions in batches, at most one per audience every
 * QUESTION_BROADCAST_INTERVAL_MS, so an upvote storm on one question costs
 * four messages a second per student whatever its size. Each audience gets
 * its own view: the class only questions it may see (with counts, and a
 * name only on named ones), an asker their own question while it waits for
 * approval, the teacher everything.
 */
export class RoomQuestions {
  private readonly dirty = new Set<string>();
  /** Questions the class has been sent and not told are gone: only those are announced as gone when they leave its view. */
  private readonly toldClass = new Set<string>();
  private readonly batches = new LeadingEdgeThrottle(QUESTION_BROADCAST_INTERVAL_MS, () => this.flush());

  constructor(
    /** The room's own state (it changes in place). */
    private readonly state: SessionState,
    private readonly outbox: QuestionOutbox,
  ) {
    for (const id of state.questionOrder) if (questionVisible(state, state.questions[id])) this.toldClass.add(id);
  }

  /** The list for one socket: the teacher's, a student's (with their own), or a projector's (participantId null). */
  list(audience: "host" | "public", participantId: string | null): QuestionList {
    return audience === "host" ? hostQuestionList(this.state) : classQuestionList(this.state, participantId);
  }

  /**
   * Takes note of an applied event: which questions each audience must hear
   * about. Returns true when the snapshots must be published (the settings
   * and the projector's question travel in them).
   */
  note(event: SessionEventBody): boolean {
    switch (event.type) {
      case "questions:configured":
      case "question:shown":
        return true;
      case "question:asked":
        this.changed(event.question.id);
        return false;
      case "question:upvoted":
        this.changed(event.questionId);
        this.outbox.myUpvote(event.participantId, { questionId: event.questionId, upvoted: event.upvoted });
        return false;
      case "question:approved":
      case "question:answered":
      case "question:hidden":
        this.changed(event.questionId);
        return false;
      case "participant:removed":
      case "participant:readmitted":
      case "participant:renamed": {
        // A removed student's questions leave the class's view (and come back with them); a rename changes the name on named ones.
        // (A removal publishes the snapshots anyway, which carries the projector's question if it was theirs.)
        for (const id of this.state.questionOrder) if (this.state.questions[id].participantId === event.participantId) this.changed(id);
        return false;
      }
      default:
        return false;
    }
  }

  dispose(): void {
    this.batches.stop();
  }

  private changed(questionId: string): void {
    this.dirty.add(questionId);
    this.batches.request();
  }

  /** One batch per audience, taken from the state as it is now (the outbox holds it back until it is durable). */
  private flush(): void {
    const s = this.state;
    const host: HostQuestion[] = [];
    const forClass: ClassQuestion[] = [];
    const goneForClass: string[] = [];
    const forAskers = new Map<string, { questions: ClassQuestion[]; gone: string[] }>();
    for (const id of this.dirty) {
      const q = own(s.questions, id);
      if (!q) continue;
      host.push(toHostQuestion(s, q));
      if (questionVisible(s, q)) {
        forClass.push(toClassQuestion(s, q));
        this.toldClass.add(id);
      } else if (this.toldClass.delete(id)) {
        goneForClass.push(id);
      } else if (q.participantId) {
        // The class never saw it: only its asker hears about it (waiting for approval, or rejected).
        let batch = forAskers.get(q.participantId);
        if (!batch) forAskers.set(q.participantId, (batch = { questions: [], gone: [] }));
        const view = classViewFor(s, q, q.participantId);
        if (view) batch.questions.push(view);
        else batch.gone.push(id);
      }
    }
    this.dirty.clear();
    const rev = s.seq;
    if (host.length > 0) this.outbox.questionChanges({ audience: "host", rev, questions: host, gone: [] });
    if (forClass.length > 0 || goneForClass.length > 0) {
      this.outbox.questionChanges({ audience: "public", rev, questions: forClass, gone: goneForClass });
    }
    for (const [participantId, batch] of forAskers) this.outbox.questionChangesFor(participantId, { audience: "public", rev, ...batch });
  }
}
