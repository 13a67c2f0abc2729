import { MAX_UPVOTE_CHANGES_PER_QUESTION, MAX_VOTES_PER_ROUND } from "../constants";
import { mapPosition } from "../lesson/position";
import { getScenario, isVariantOf } from "../lesson/scenarios";
import { generateNextStepPoll } from "../polls/nextStep";
import { generateLessonPoll } from "../polls/lessonPoll";
import { diagramOf } from "./lesson";
import { projectorSide } from "./projectorSide";
import type { MyUpvote, MyVote } from "./views";
import { countVotes } from "./reducer";
import { accept, refuse, type Actor, type DecideContext, type Decision, type DurableCommand } from "./decision";
import { askQuestion, hideAllPending } from "./decideQuestions";

export type { Actor, DecideContext, Decision, DurableCommand };
import { activePoll, focusIsValid, logFull, openRefusal, own, questionVisible, stepInRange, upvoteRefusal, voteRefusal } from "./rules";
import type { PollOption, SessionEventBody, SessionState } from "./types";

/**
 * What a command means, and whether it is allowed: the decider half of the
 * session (`applyEvent` is the other half, and never refuses a fact). Every
 * rule a command is checked against lives here or in the guards of ./rules,
 * which the reducer shares, so a live command and a replayed event are judged by the
 * same code. Pure: time, ids and shuffling come in through `DecideContext`.
 *
 * A new command is a schema (lib/protocol/schemas.ts), a case here, a case in
 * `applyEvent` and a line in docs/protocol.md.
 */

/** What a student does in the class; refused while the teacher has paused it. */
const PAUSED_COMMANDS: ReadonlySet<DurableCommand["event"]> = new Set(["poll:vote", "question:ask", "question:upvote"]);

// ---------------------------------------------------------------------------
// The decider

export function decide(state: SessionState, command: DurableCommand, actor: Actor, ctx: DecideContext): Decision {
  if (state.status === "ended") return command.event === "session:end" ? accept([], null) : refuse("SESSION_ENDED");
  // Past the cap the teacher can still finish: close and reveal the poll, end the session.
  if (logFull(state) && command.event !== "poll:close" && command.event !== "poll:reveal" && command.event !== "session:end") {
    return refuse("LOG_FULL");
  }
  // While paused the class only watches: what a student does is refused, with a sentence saying why.
  if (state.paused && PAUSED_COMMANDS.has(command.event)) return refuse("CLASS_PAUSED");
  switch (command.event) {
    case "step:go":
      return goToStep(state, command.payload.stepIndex);

    case "step:move": {
      const total = diagramOf(state).steps.length;
      return goToStep(state, Math.min(total - 1, Math.max(0, state.stepIndex + command.payload.delta)));
    }

    case "mode:set": {
      const { mode, variant } = command.payload;
      if (!isVariantOf(mode, variant)) return refuse("BAD_MODE");
      if (state.lesson) return refuse("BAD_MODE", "This lesson has no binding modes.");
      if (mode === state.mode && variant === state.variant) return accept([], { matched: true });
      const { index, matched } = mapPosition(getScenario(state.mode, state.variant), state.stepIndex, getScenario(mode, variant));
      return accept([{ type: "mode:changed", mode, variant, stepIndex: index, matched }], { matched });
    }

    case "version:set": {
      const { version } = command.payload;
      if (state.lesson) return refuse("BAD_REQUEST", "A lesson of your own prints no Kubernetes strings: there is no version to choose.");
      return accept(version === state.kubeVersion ? [] : [{ type: "version:changed", version }], null);
    }

    case "poll:open":
      return openPoll(state, command.payload, ctx);

    case "poll:close": {
      const poll = own(state.polls, command.payload.pollId);
      if (!poll) return refuse("NO_SUCH_POLL");
      if (poll.status !== "open") return refuse("POLL_CLOSED");
      // The counts taken now are the round's result, in every replay and export.
      const { counts, total } = countVotes(poll);
      return accept([{ type: "poll:closed", pollId: poll.id, counts, total }], null);
    }

    case "poll:reveal": {
      const poll = own(state.polls, command.payload.pollId);
      if (!poll) return refuse("NO_SUCH_POLL");
      if (poll.status === "open") return refuse("POLL_NOT_CLOSED");
      return accept(poll.status === "revealed" ? [] : [{ type: "poll:revealed", pollId: poll.id }], null);
    }

    case "poll:reopen": {
      const { pollId, durationS } = command.payload;
      const poll = own(state.polls, pollId);
      if (!poll) return refuse("NO_SUCH_POLL");
      if (poll.status === "open" || openRefusal(state)) return refuse("POLL_ALREADY_OPEN");
      return accept([{ type: "poll:reopened", pollId, closesAt: closesAt(ctx, durationS) }], null);
    }

    case "results:show":
      return accept(
        command.payload.visible === state.resultsVisible ? [] : [{ type: "results:visibility", visible: command.payload.visible }],
        null,
      );

    case "projector:show": {
      const { panel } = command.payload;
      if (panel === "poll" && !activePoll(state)) return refuse("NO_SUCH_POLL", "There is no poll to show: open one first.");
      if (state.lesson && panel !== "poll" && panel !== "none")
        return refuse("BAD_REQUEST", "The side panels explain the Kubernetes lesson; a lesson of your own shows its diagram and polls.");
      const same = panel === projectorSide(state);
      return accept(same ? [] : [{ type: "projector:panelChanged", panel }], null);
    }

    case "projector:focus": {
      const focus = { object: command.payload.object, deepDive: command.payload.deepDive };
      if (!focusIsValid(state, focus)) return refuse("BAD_REQUEST", "That deep dive is not at this step.");
      const same = focus.object === state.projectorFocus.object && focus.deepDive === state.projectorFocus.deepDive;
      return accept(same ? [] : [{ type: "projector:focusChanged", focus }], null);
    }

    case "projector:language": {
      const { language } = command.payload;
      return accept(language === state.projectorLanguage ? [] : [{ type: "projector:languageChanged", language }], null);
    }

    case "class:pause":
      return accept(command.payload.paused === state.paused ? [] : [{ type: "class:paused", paused: command.payload.paused }], null);

    case "room:lock":
      return accept(command.payload.locked === state.locked ? [] : [{ type: "room:locked", locked: command.payload.locked }], null);

    case "participant:remove": {
      const p = own(state.participants, command.payload.participantId);
      if (!p || p.removed) return refuse("NO_SUCH_PARTICIPANT");
      return accept([{ type: "participant:removed", participantId: p.id }], null);
    }

    case "participant:readmit": {
      // Only a removed student can be let back in; they come back with the token their browser kept.
      const p = own(state.participants, command.payload.participantId);
      if (!p || !p.removed) return refuse("NO_SUCH_PARTICIPANT");
      return accept([{ type: "participant:readmitted", participantId: p.id }], null);
    }

    case "participant:rename": {
      const { participantId, nickname } = command.payload;
      const p = own(state.participants, participantId);
      if (!p || p.removed) return refuse("NO_SUCH_PARTICIPANT");
      return accept(p.nickname === nickname ? [] : [{ type: "participant:renamed", participantId, nickname }], null);
    }

    case "session:end": {
      // Close an open poll first, with its counts on the event, so every export and replay has the round's result.
      const events: SessionEventBody[] = [];
      const poll = activePoll(state);
      if (poll && poll.status === "open") events.push({ type: "poll:closed", pollId: poll.id, ...countVotes(poll) });
      events.push({ type: "session:ended" });
      return accept(events, null);
    }

    case "poll:vote": {
      if (!actor.participantId) return refuse("NOT_STUDENT");
      const { pollId, optionId } = command.payload;
      const refusal = voteRefusal(state, actor.participantId, pollId, optionId);
      if (refusal) return refuse(refusal);
      const poll = state.polls[pollId];
      // The same vote again writes nothing; a new one is the next event in the log.
      if (poll.votes[actor.participantId] === optionId) return accept([], { pollId, round: poll.round, optionId, rev: state.seq });
      const mine: MyVote = { pollId, round: poll.round, optionId, rev: state.seq + 1 };
      // Bounded writes per participant and round; the vote in force stays counted.
      if ((poll.voteWrites[actor.participantId] ?? 0) >= MAX_VOTES_PER_ROUND) return refuse("VOTE_LIMIT");
      return accept([{ type: "poll:voted", pollId, participantId: actor.participantId, optionId }], mine);
    }

    case "question:ask":
      return askQuestion(state, command.payload, actor, ctx);

    case "question:upvote": {
      if (!actor.participantId) return refuse("NOT_STUDENT");
      const { questionId, upvoted } = command.payload;
      if (!own(state.participants, actor.participantId)) return refuse("REMOVED");
      const refusal = upvoteRefusal(state, actor.participantId, questionId);
      if (refusal === "BAD_REQUEST") return refuse(refusal, "That is your own question: it needs the others' upvotes.");
      if (refusal) return refuse(refusal);
      const question = state.questions[questionId];
      const mine = (now: boolean, votes: number): MyUpvote & { votes: number } => ({ questionId, upvoted: now, votes });
      // The same upvote again writes nothing.
      if (Object.hasOwn(question.upvoters, actor.participantId) === upvoted) return accept([], mine(upvoted, question.votes));
      if ((question.upvoteWrites[actor.participantId] ?? 0) >= MAX_UPVOTE_CHANGES_PER_QUESTION) {
        return refuse("QUESTION_LIMIT", "You have changed your upvote on this question too often; it stays as it is.");
      }
      return accept(
        [{ type: "question:upvoted", questionId, participantId: actor.participantId, upvoted }],
        mine(upvoted, question.votes + (upvoted ? 1 : -1)),
      );
    }

    case "questions:configure": {
      const { mode, names } = command.payload;
      const same = mode === state.questionSettings.mode && names === state.questionSettings.names;
      return accept(same ? [] : [{ type: "questions:configured", mode, names }], null);
    }

    case "question:approve": {
      const question = own(state.questions, command.payload.questionId);
      if (!question) return refuse("NO_SUCH_QUESTION");
      return accept(question.status === "pending" ? [{ type: "question:approved", questionId: question.id }] : [], null);
    }

    case "question:answer": {
      const { questionId, answered } = command.payload;
      const question = own(state.questions, questionId);
      if (!question) return refuse("NO_SUCH_QUESTION");
      if (question.status === "pending") return refuse("QUESTION_PENDING");
      return accept((question.status === "answered") === answered ? [] : [{ type: "question:answered", questionId, answered }], null);
    }

    case "question:hide": {
      if ("allPending" in command.payload) return hideAllPending(state, command.payload.block);
      const { questionId, hidden } = command.payload;
      const question = own(state.questions, questionId);
      if (!question) return refuse("NO_SUCH_QUESTION");
      const events: SessionEventBody[] = question.hidden === hidden ? [] : [{ type: "question:hidden", questionId, hidden }];
      // Showing a question again says its asker was not the flood: they may ask again.
      const asker = own(state.participants, question.participantId);
      if (!hidden && asker?.questionsBlocked) events.push({ type: "questions:blocked", participantIds: [asker.id], blocked: false });
      return accept(events, null);
    }

    case "question:show": {
      const { questionId } = command.payload;
      if (questionId === state.shownQuestionId) return accept([], null);
      if (questionId !== null) {
        const question = own(state.questions, questionId);
        if (!question) return refuse("NO_SUCH_QUESTION");
        if (question.status === "pending") return refuse("QUESTION_PENDING");
        if (!questionVisible(state, question))
          return refuse("BAD_REQUEST", "A hidden question cannot go on the projector. Show it to the class first.");
      }
      return accept([{ type: "question:shown", questionId }], null);
    }

    default: {
      const never: never = command;
      return refuse("UNKNOWN_EVENT", `Unknown command ${JSON.stringify(never)}`);
    }
  }
}

function goToStep(state: SessionState, stepIndex: number): Decision<null> {
  if (!stepInRange(state, stepIndex)) return refuse("STEP_OUT_OF_RANGE");
  return accept(stepIndex === state.stepIndex ? [] : [{ type: "step:changed", stepIndex }], null);
}

function closesAt(ctx: DecideContext, durationS: number): number | null {
  return durationS > 0 ? ctx.now + durationS * 1000 : null;
}

function openPoll(
  state: SessionState,
  command: Extract<DurableCommand, { event: "poll:open" }>["payload"],
  ctx: DecideContext,
): Decision<{ pollId: string }> {
  const busy = openRefusal(state);
  if (busy) return refuse(busy);
  let question: string;
  let options: PollOption[];
  let correctOptionId: string | null;
  if (command.kind === "next-step") {
    const generated = state.lesson
      ? generateLessonPoll(diagramOf(state), state.stepIndex)
      : generateNextStepPoll(getScenario(state.mode, state.variant), state.stepIndex);
    if (!generated) return refuse("NO_NEXT_STEP");
    // Shuffle first, then number: ids follow screen order, so neither the
    // position nor the id (visible in dev tools) says which one is right.
    const shuffled = ctx.shuffle([...generated.options]).map((o, i) => ({ ...o, id: `o${i + 1}` }));
    question = generated.question;
    options = shuffled.map(({ id, text, note }) => ({ id, text, note }));
    correctOptionId = shuffled.find((o) => o.correct)?.id ?? null;
  } else {
    question = command.question;
    options = command.options.map((text, i) => ({ id: `o${i + 1}`, text }));
    const correctIndex = command.correctIndex ?? null;
    if (correctIndex !== null && correctIndex >= options.length) return refuse("BAD_REQUEST", "correctIndex is not an option");
    correctOptionId = correctIndex === null ? null : options[correctIndex].id;
  }
  const id = ctx.newId();
  return accept(
    [
      {
        type: "poll:opened",
        poll: { id, kind: command.kind, question, options, correctOptionId },
        closesAt: closesAt(ctx, command.durationS ?? 0),
      },
    ],
    { pollId: id },
  );
}
