import { expect } from "vitest";
import { BINDING_MODES, VARIANTS, getScenario, isVariantOf } from "../../../lib/lesson";
import { NICKNAME_MAX, cleanText } from "../../../lib/protocol";
import { PROJECTOR_PANELS, activePoll } from "../../../lib/session";
import { projectorSide } from "../../../lib/session/projectorSide";
import { waitUntil } from "../harness";
import { commandsFor } from "./commands";
import { nicknameFor, textFor } from "./hostile";
import { hasPoll, liveParticipant, picksFor } from "./oracles";
import { CONVERGE_TIMEOUT_MS, type Action, type FuzzRun } from "./run";
import { COMMAND_TABLE, onTheWire, type Outcome } from "./wire";

/** The teacher's actions, with their weights: steps, modes, polls, results, the projector, the room, the roster. */
export function teacherActions(run: FuzzRun): Record<string, Action> {
  const { rng, tabs, identities, where, state, hostTab } = run;

  const { command } = commandsFor(run);
  const { pickPollId, pickParticipantId } = picksFor(run);

  const actions: Record<string, Action> = {
    // ---- the teacher
    stepMove: [
      8,
      async () => {
        const s = state();
        const delta = rng.pick([1, 1, -1] as const);
        const total = getScenario(s.mode, s.variant).steps.length;
        const target = Math.min(total - 1, Math.max(0, s.stepIndex + delta));
        await command(await hostTab(), "step:move", { delta }, "ok", target === s.stepIndex ? [] : ["step:changed"]);
        return true;
      },
    ],
    stepGo: [
      5,
      async () => {
        const s = state();
        const stepIndex = rng.pick([rng.range(0, 13), rng.range(0, 13), -1, 99, 100, 2.5]);
        const total = getScenario(s.mode, s.variant).steps.length;
        const valid = Number.isInteger(stepIndex) && stepIndex >= 0 && stepIndex <= 99;
        const outcome: Outcome = !valid ? "BAD_REQUEST" : stepIndex >= total ? "STEP_OUT_OF_RANGE" : "ok";
        await command(await hostTab(), "step:go", { stepIndex }, outcome, stepIndex === s.stepIndex ? [] : ["step:changed"]);
        return true;
      },
    ],
    modeSet: [
      5,
      async () => {
        const s = state();
        const mode = rng.pick(BINDING_MODES);
        const variant = rng.pick([undefined, ...VARIANTS]);
        const same = mode === s.mode && (variant ?? "standard") === s.variant;
        const outcome: Outcome = isVariantOf(mode, variant ?? "standard") ? "ok" : "BAD_MODE";
        const ack = await command(await hostTab(), "mode:set", { mode, variant }, outcome, same ? [] : ["mode:changed"]);
        if (ack.ok) expect(typeof (ack.data as { matched: unknown }).matched, `${where()}: mode:set data`).toBe("boolean");
        return true;
      },
    ],
    openNextStep: [
      5,
      async () => {
        const s = state();
        // A countdown is set but never runs out within a seed: a poll closed by the clock would make what follows
        // depend on the machine's speed (tests/integration/faultsFrozenOwner.test.ts has the countdown close a poll).
        const durationS = rng.pick([undefined, 0, 0, 0, 120, 7]);
        const current = activePoll(s);
        const last = s.stepIndex === getScenario(s.mode, s.variant).steps.length - 1;
        const outcome: Outcome =
          durationS === 7 ? "BAD_REQUEST" : current?.status === "open" ? "POLL_ALREADY_OPEN" : last ? "NO_NEXT_STEP" : "ok";
        const ack = await command(await hostTab(), "poll:open", { kind: "next-step", durationS }, outcome, ["poll:opened"]);
        if (ack.ok) expect(state().activePollId, `${where()}: opened poll id`).toBe((ack.data as { pollId: string }).pollId);
        return true;
      },
    ],
    openCustom: [
      4,
      async () => {
        const s = state();
        const options = Array.from({ length: rng.pick([2, 2, 3, 4, 6, 1, 7]) }, () => textFor(rng, 120));
        const payload = {
          kind: "custom",
          question: textFor(rng, 200),
          options,
          correctIndex: rng.pick([undefined, null, 0, 1, rng.int(7)]),
          durationS: rng.pick([undefined, 0]),
        };
        const parsed = COMMAND_TABLE["poll:open"].schema.safeParse(onTheWire(payload));
        const outcome: Outcome = !parsed.success
          ? "BAD_REQUEST"
          : activePoll(s)?.status === "open"
            ? "POLL_ALREADY_OPEN"
            : (payload.correctIndex ?? -1) >= options.length
              ? "BAD_REQUEST"
              : "ok";
        const ack = await command(await hostTab(), "poll:open", payload, outcome, ["poll:opened"]);
        if (ack.ok) {
          const poll = state().polls[(ack.data as { pollId: string }).pollId];
          expect(
            poll.options.map((o) => o.text),
            `${where()}: option texts`,
          ).toEqual(options.map((o) => cleanText(o, 120)));
          expect(poll.question, `${where()}: question`).toBe(cleanText(payload.question, 200));
        }
        return true;
      },
    ],
    close: [
      5,
      async () => {
        const s = state();
        const pollId = pickPollId();
        const outcome: Outcome = !hasPoll(s, pollId) ? "NO_SUCH_POLL" : s.polls[pollId].status !== "open" ? "POLL_CLOSED" : "ok";
        await command(await hostTab(), "poll:close", { pollId }, outcome, ["poll:closed"]);
        return true;
      },
    ],
    reveal: [
      3,
      async () => {
        const s = state();
        const pollId = pickPollId();
        const status = hasPoll(s, pollId) ? s.polls[pollId].status : null;
        const outcome: Outcome = status === null ? "NO_SUCH_POLL" : status === "open" ? "POLL_NOT_CLOSED" : "ok";
        await command(await hostTab(), "poll:reveal", { pollId }, outcome, status === "revealed" ? [] : ["poll:revealed"]);
        return true;
      },
    ],
    reopen: [
      3,
      async () => {
        const s = state();
        const pollId = pickPollId();
        const outcome: Outcome = !hasPoll(s, pollId) ? "NO_SUCH_POLL" : activePoll(s)?.status === "open" ? "POLL_ALREADY_OPEN" : "ok";
        await command(await hostTab(), "poll:reopen", { pollId, durationS: rng.pick([undefined, 0, 120]) }, outcome, ["poll:reopened"]);
        return true;
      },
    ],
    results: [
      3,
      async () => {
        const visible = rng.chance(0.5);
        await command(await hostTab(), "results:show", { visible }, "ok", visible === state().resultsVisible ? [] : ["results:visibility"]);
        return true;
      },
    ],
    panel: [
      2,
      async () => {
        const panel = rng.pick(PROJECTOR_PANELS);
        await command(
          await hostTab(),
          "projector:show",
          { panel },
          "ok",
          // The projector's side is one value (the poll, or the panel): choosing what it shows already writes nothing.
          panel === projectorSide(state()) ? [] : ["projector:panelChanged"],
        );
        return true;
      },
    ],
    pause: [
      1,
      async () => {
        // Pauses are short: a paused class mostly resumes at the next roll.
        const paused = state().paused ? rng.chance(0.2) : rng.chance(0.7);
        await command(await hostTab(), "class:pause", { paused }, "ok", paused === state().paused ? [] : ["class:paused"]);
        return true;
      },
    ],
    lock: [
      1.5,
      async () => {
        const locked = state().locked ? rng.chance(0.2) : rng.chance(0.6);
        await command(await hostTab(), "room:lock", { locked }, "ok", locked === state().locked ? [] : ["room:locked"]);
        return true;
      },
    ],
    remove: [
      1.5,
      async () => {
        const participantId = pickParticipantId();
        const outcome: Outcome = liveParticipant(state(), participantId) ? "ok" : "NO_SUCH_PARTICIPANT";
        const identity = outcome === "ok" ? identities.find((i) => i.participantId === participantId) : undefined;
        // The kick may land before the ack: these tabs are expected to go.
        const kicked = tabs.filter((t) => t.open && identity && t.identity === identity);
        for (const tab of kicked) tab.open = false;
        const ack = await command(await hostTab(), "participant:remove", { participantId }, outcome, ["participant:removed"]);
        if (identity) identity.removed = ack.ok;
        if (ack.ok) {
          await waitUntil(() => kicked.every((t) => !t.client.socket.connected), CONVERGE_TIMEOUT_MS).catch(() => undefined);
          for (const tab of kicked) {
            expect(tab.client.socket.connected, `${where()}: ${tab.name} was not disconnected`).toBe(false);
            expect(tab.client.kicked, `${where()}: ${tab.name} kick reason`).toContainEqual(expect.objectContaining({ code: "REMOVED" }));
          }
        } else for (const tab of kicked) tab.open = true;
        return true;
      },
    ],
    rename: [
      2,
      async () => {
        const participantId = pickParticipantId();
        const raw = nicknameFor(rng, 99) ?? "";
        const s = state();
        const cleaned = cleanText(raw, NICKNAME_MAX);
        const outcome: Outcome =
          raw.length > NICKNAME_MAX * 4 || cleaned === ""
            ? "BAD_REQUEST"
            : liveParticipant(s, participantId)
              ? "ok"
              : "NO_SUCH_PARTICIPANT";
        const same = outcome === "ok" && s.participants[participantId].nickname === cleaned;
        const ack = await command(
          await hostTab(),
          "participant:rename",
          { participantId, nickname: raw },
          outcome,
          same ? [] : ["participant:renamed"],
        );
        const identity = identities.find((i) => i.participantId === participantId);
        if (ack.ok && identity) identity.nickname = cleaned;
        return true;
      },
    ],
  };
  return actions;
}
