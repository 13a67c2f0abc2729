import { QUESTION_BROADCAST_INTERVAL_MS } from "../../lib/constants";
import { own, toClassQuestion, toHostQuestion, type SessionEventBody, type SessionState } from "../../lib/session";
import { ownHiddenQuestion, recordKey, type PatchOf } from "../../lib/session/projection";
import { questionVisible } from "../../lib/session/rules";
import { LeadingEdgeThrottle } from "./throttle";
import type { RoomSync } from "./roomSync";

/**
 * A room's questions. Each is a record of its own, never in the session
 * record that goes to the whole class on every step: a socket gets them
 * whole once (join, resync), then changed questions in batches, at most one
 * per audience every QUESTION_BROADCAST_INTERVAL_MS, so an upvote storm on
 * one question costs four messages a second per student whatever its size.
 * Each audience gets its own view: the class only questions it may see (with
 * counts, and a name only on named ones), an asker their own question while
 * it waits for approval, the teacher everything.
 */
export class RoomQuestions {
  private readonly dirty = new Set<string>();
  /** Questions the class has been sent and not told are gone: only those are announced as gone when they leave its view. */
  private readonly toldClass = new Set<string>();
  /** Questions an asker holds as their own hidden copy (waiting for approval). */
  private readonly toldAsker = new Set<string>();
  private readonly batches = new LeadingEdgeThrottle(QUESTION_BROADCAST_INTERVAL_MS, () => this.flush());

  constructor(
    /** The room's own state (it changes in place). */
    private readonly state: SessionState,
    private readonly sync: RoomSync,
  ) {
    for (const id of state.questionOrder) {
      const q = state.questions[id];
      if (questionVisible(state, q)) this.toldClass.add(id);
      else if (q.participantId && ownHiddenQuestion(state, q.participantId, id)) this.toldAsker.add(id);
    }
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
        // "Yours", on every tab of the asker's.
        if (event.question.participantId) {
          const put: NonNullable<PatchOf<"me">["put"]> = {};
          put[recordKey("m", event.question.id)] = true;
          this.sync.toParticipant(event.question.participantId, { put });
        }
        return false;
      case "question:upvoted": {
        this.changed(event.questionId);
        const key = recordKey("u", event.questionId);
        const put: NonNullable<PatchOf<"me">["put"]> = {};
        if (event.upvoted) put[key] = true;
        this.sync.toParticipant(event.participantId, event.upvoted ? { put } : { del: [key] });
        return false;
      }
      case "question:approved":
      case "question:answered":
      case "question:hidden":
        this.changed(event.questionId);
        return false;
      case "participant:removed":
      case "participant:readmitted":
      case "participant:renamed": {
        // A removed student's named questions leave the class's view (and come back with them); a rename changes the name on
        // named ones. Anonymous ones do not change for anyone, and are not sent: a batch of them at that moment would say whose
        // they are. (A removal publishes the snapshots anyway, which carries the projector's question if it was theirs.)
        for (const id of this.state.questionOrder) {
          const q = this.state.questions[id];
          if (q.participantId === event.participantId && !q.anonymous) this.changed(id);
        }
        return false;
      }
      case "questions:blocked": {
        // The teacher's rows of the askers' hidden questions say so; the class sees no hidden question, so hears nothing.
        const askers = new Set(event.participantIds);
        for (const id of this.state.questionOrder) {
          const q = this.state.questions[id];
          if (q.hidden && askers.has(q.participantId)) this.changed(id);
        }
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
    const host: NonNullable<PatchOf<"host">["put"]> = {};
    const forClass: NonNullable<PatchOf<"public">["put"]> = {};
    const goneForClass: `q:${string}`[] = [];
    const forAskers = new Map<string, { put: NonNullable<PatchOf<"me">["put"]>; del: `q:${string}`[] }>();
    const askerBatch = (participantId: string) => {
      let batch = forAskers.get(participantId);
      if (!batch) forAskers.set(participantId, (batch = { put: {}, del: [] }));
      return batch;
    };
    for (const id of this.dirty) {
      const q = own(s.questions, id);
      if (!q) continue;
      const key = recordKey("q", id);
      host[key] = toHostQuestion(s, q);
      if (questionVisible(s, q)) {
        forClass[key] = toClassQuestion(s, q);
        this.toldClass.add(id);
      } else if (this.toldClass.delete(id)) {
        goneForClass.push(key);
      }
      // The asker's own copy while the class does not see it (waiting for approval); gone once the class has it, or nobody does.
      if (!q.participantId) continue;
      const hidden = ownHiddenQuestion(s, q.participantId, id);
      if (hidden) {
        askerBatch(q.participantId).put[key] = hidden;
        this.toldAsker.add(id);
      } else if (this.toldAsker.delete(id)) {
        askerBatch(q.participantId).del.push(key);
      }
    }
    this.dirty.clear();
    this.sync.toHosts({ put: host });
    this.sync.toClass({ put: forClass, del: goneForClass });
    for (const [participantId, batch] of forAskers) this.sync.toParticipant(participantId, batch);
  }
}
