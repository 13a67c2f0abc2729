import { expect } from "vitest";
import { getScenario, isVariantOf } from "../../../lib/lesson";
import { ERROR_CODES, NICKNAME_MAX, cleanText, type Ack } from "../../../lib/protocol";
import { activePoll, countVotes } from "../../../lib/session";
import type { FuzzRun } from "./run";
import { rosterOfRoom, short } from "./wire";

/** The server's answers and state, checked after every action. */
export function invariantsFor(run: FuzzRun) {
  const { srv, room, where, state, openTabs, durableEvents } = run;

  function expectErrorShape(ack: Ack<unknown>): void {
    if (ack.ok) return;
    expect(Object.keys(ERROR_CODES), `${where()}: unknown error code in ${short(ack)}`).toContain(ack.error.code);
    expect(ack.error.message, `${where()}: an error message leaks internals`).not.toMatch(
      /\n\s+at |\.ts:\d+|node_modules|TypeError|ReferenceError/,
    );
  }

  /**
   * The rules the authoritative state must keep after every action. Checked in
   * plain code and reported together: hundreds of expect() calls per action
   * would cost more than the actions.
   */
  async function checkServerInvariants(): Promise<void> {
    const s = state();
    const bad: string[] = [];
    const check = (ok: boolean, message: () => string) => void (ok || bad.push(message()));

    const events = await durableEvents();
    check(
      events.every((e, i) => e.seq === i + 1),
      () => `log seqs are not 1..n: ${short(events.map((e) => e.seq).slice(-10))}`,
    );
    check(s.seq === events.length, () => `live seq ${s.seq} but ${events.length} durable events`);
    check(s.seq >= run.lastSeq, () => `seq went backwards: ${run.lastSeq} -> ${s.seq}`);
    run.lastSeq = Math.max(run.lastSeq, s.seq);
    check(s.status === "live", () => "the session ended on its own");

    check(isVariantOf(s.mode, s.variant), () => `${s.mode}/${s.variant} is not a scenario`);
    const steps = getScenario(s.mode, s.variant).steps.length;
    check(Number.isInteger(s.stepIndex) && s.stepIndex >= 0 && s.stepIndex < steps, () => `stepIndex ${s.stepIndex} of ${steps}`);

    for (const [key, p] of Object.entries(s.participants)) {
      check(p.id === key, () => `participant stored under "${key}" has id ${short(p.id)}: ${short(p)}`);
      check(typeof p.nickname === "string" && p.nickname.length > 0, () => `participant ${key} nickname ${short(p.nickname)}`);
      check(
        typeof p.nickname !== "string" || cleanText(p.nickname, NICKNAME_MAX) === p.nickname,
        () => `participant ${key} nickname is not clean: ${short(p.nickname)}`,
      );
      check(typeof p.removed === "boolean", () => `participant ${key} removed is ${short(p.removed)}`);
    }

    const pollIds = Object.keys(s.polls);
    check(
      s.pollOrder.length === pollIds.length &&
        s.pollOrder.every((id) => Object.hasOwn(s.polls, id)) &&
        new Set(s.pollOrder).size === s.pollOrder.length,
      () => `pollOrder ${short(s.pollOrder)} vs polls ${short(pollIds)}`,
    );
    check(s.activePollId === null || Object.hasOwn(s.polls, s.activePollId), () => `activePollId ${short(s.activePollId)} is not a poll`);
    const open = Object.values(s.polls).filter((p) => p.status === "open");
    check(open.length <= 1, () => `${open.length} open polls: ${short(open.map((p) => p.id))}`);
    check(
      open.length !== 1 || s.activePollId === open[0].id,
      () => `the open poll ${short(open[0]?.id)} is not the active one (${short(s.activePollId)})`,
    );
    for (const [key, poll] of Object.entries(s.polls)) {
      const ctx = `poll "${key}"`;
      check(poll.id === key, () => `${ctx} has id ${short(poll.id)}: ${short(poll)}`);
      const optionIds = (poll.options ?? []).map((o) => o.id);
      check(optionIds.length >= 2 && optionIds.length <= 6, () => `${ctx} has ${optionIds.length} options`);
      check(new Set(optionIds).size === optionIds.length, () => `${ctx} repeats an option id: ${short(optionIds)}`);
      check(
        poll.correctOptionId === null || optionIds.includes(poll.correctOptionId),
        () => `${ctx} correct option ${short(poll.correctOptionId)}`,
      );
      check(Number.isInteger(poll.round) && poll.round >= 1, () => `${ctx} round ${short(poll.round)}`);
      for (const [voter, optionId] of Object.entries(poll.votes ?? {})) {
        check(Object.hasOwn(s.participants, voter), () => `${ctx}: a vote from unknown participant ${voter}`);
        check(optionIds.includes(optionId), () => `${ctx}: a vote for ${short(optionId)}, not one of ${short(optionIds)}`);
        if (poll.status === "open")
          check(!s.participants[voter]?.removed, () => `${ctx}: removed participant ${voter}'s vote still counts`);
      }
      let previousRound = 0;
      for (const round of poll.history ?? []) {
        check(
          round.round > previousRound && round.round <= poll.round,
          () => `${ctx}: history rounds ${short(poll.history.map((r) => r.round))}`,
        );
        previousRound = round.round;
        check(
          Object.keys(round.counts).sort().join() === [...optionIds].sort().join(),
          () => `${ctx}: history counts keys ${short(round.counts)}`,
        );
        check(Object.values(round.counts).reduce((a, b) => a + b, 0) === round.total, () => `${ctx}: history total ${short(round)}`);
      }
      if (poll.status !== "open")
        check(poll.history?.at(-1)?.round === poll.round, () => `${ctx}: closed round ${poll.round} is missing from history`);
    }

    const host = room.hostSnapshot();
    check(host.rev === s.seq, () => `host snapshot rev ${host.rev} vs seq ${s.seq}`);
    const roster = rosterOfRoom(room);
    check(roster.length === Object.keys(s.participants).length, () => `roster ${short(roster)} vs participants`);
    for (const row of roster) {
      const p = s.participants[row.id];
      check(p?.nickname === row.nickname && p.removed === row.removed, () => `roster row ${short(row)} vs participant ${short(p)}`);
    }
    const active = activePoll(s);
    check((host.poll?.id ?? null) === (active?.id ?? null), () => `host poll ${short(host.poll?.id)} vs active ${short(active?.id)}`);
    if (active && host.poll) {
      const tally = countVotes(active);
      if (active.status === "open") {
        check(
          JSON.stringify(host.poll.results) === JSON.stringify(tally),
          () => `host tally ${short(host.poll?.results)} vs votes ${short(tally)}`,
        );
        check(
          tally.total === Object.keys(active.votes).length,
          () => `tally total ${tally.total} vs ${Object.keys(active.votes).length} votes`,
        );
      } else {
        const last = active.history.at(-1);
        check(
          JSON.stringify(host.poll.results) === JSON.stringify({ counts: last?.counts, total: last?.total }),
          () => `closed poll results ${short(host.poll?.results)} vs its last round ${short(last)}`,
        );
      }
    }
    // Nothing private in the public view: no votes, no answer or notes before the reveal.
    const pub = room.publicSnapshot();
    if (pub.poll) {
      check(!("votes" in pub.poll), () => "the public poll carries votes");
      if (!pub.poll.revealed) {
        check(pub.poll.correctOptionId === null, () => "the answer leaked before the reveal");
        check(
          pub.poll.options.every((o) => o.note === undefined),
          () => "notes leaked before the reveal",
        );
        check(s.resultsVisible || pub.poll.results === null, () => "results leaked while hidden");
      }
    }
    check(Object.keys(Object.prototype).length === 0, () => `Object.prototype was polluted: ${short(Object.keys(Object.prototype))}`);
    for (const tab of openTabs()) check(tab.client.socket.connected, () => `${tab.name} was disconnected`);
    const health = await fetch(`${srv.url}/api/health`);
    check(health.status === 200, () => `/api/health answered ${health.status}`);
    await health.body?.cancel();
    expect(bad, `${where()}: invariants broken`).toEqual([]);
  }

  return { expectErrorShape, checkServerInvariants };
}
