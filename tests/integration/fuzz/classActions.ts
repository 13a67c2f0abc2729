import { expect } from "vitest";
import type { Ack, MyVote } from "../../../lib/protocol";
import { activePoll } from "../../../lib/session";
import { waitUntil } from "../harness";
import { commandsFor } from "./commands";
import { nicknameFor } from "./hostile";
import { invariantsFor } from "./invariants";
import { picksFor } from "./oracles";
import { CONVERGE_TIMEOUT_MS, type Action, type FuzzRun } from "./run";
import { studentsFor } from "./students";
import { PROTOTYPE_KEYS, current, short, type EventName, type Identity, type Outcome } from "./wire";

/** The class's actions, with their weights: students join, leave, come back, vote, and race the teacher. */
export function classActions(run: FuzzRun): Record<string, Action> {
  const { rng, tabs, identities, stats, where, state, openTabs, hostTab, closeTab, spend, answers } = run;

  const { command, emitMaybe, writesSince } = commandsFor(run);
  const { expectErrorShape } = invariantsFor(run);
  const { join, rejoin, vote, studentTabs } = studentsFor(run);
  const { pickPollId } = picksFor(run);

  const actions: Record<string, Action> = {
    join: [
      8,
      async () => {
        await join(nicknameFor(rng, identities.length + 1));
        return true;
      },
    ],
    leave: [
      5,
      async () => {
        const candidates = studentTabs();
        if (!candidates.length) return false;
        closeTab(rng.pick(candidates));
        return true;
      },
    ],
    reconnect: [
      5,
      async () => {
        const away = identities.filter((i) => !tabs.some((t) => t.open && t.identity === i));
        if (!away.length) return false;
        const identity = rng.pick(away);
        const raw = rng.pick([undefined, identity.nickname, nicknameFor(rng, 0)]);
        await rejoin(identity, raw, identity.removed ? "removed student reconnects" : "reconnect");
        return true;
      },
    ],
    secondTab: [
      3,
      async () => {
        const here = identities.filter((i) => !i.removed && tabs.some((t) => t.open && t.identity === i));
        if (!here.length) return false;
        const identity = rng.pick(here);
        // The same browser: the same stored nickname, or none.
        await rejoin(identity, rng.pick([undefined, identity.nickname]), "second tab");
        return true;
      },
    ],
    vote: [
      18,
      async () => {
        const candidates = studentTabs();
        const snapPoll = candidates.length ? current(candidates[0]).poll : null;
        if (!candidates.length || !snapPoll) return false;
        const tab = rng.pick(candidates);
        const poll = current(tab).poll ?? snapPoll;
        await vote(tab, poll.id, rng.pick(poll.options).id);
        return true;
      },
    ],
    voteWave: [
      4,
      async () => {
        const s = state();
        const poll = activePoll(s);
        const candidates = studentTabs();
        if (!poll || poll.status !== "open" || s.paused || candidates.length < 3) return false;
        const wave = Array.from({ length: rng.range(3, Math.min(15, candidates.length)) }, () => rng.pick(candidates));
        const choices = wave.map(() => rng.pick(poll.options).id);
        // Concurrent votes from different students do not interact; the same student twice just replaces. So the
        // students vote at once, each student's votes in the order drawn (the answers are then the same every run).
        const acks: Ack<unknown>[] = [];
        const byStudent = new Map<Identity | null, number[]>();
        wave.forEach((tab, k) => byStudent.set(tab.identity, [...(byStudent.get(tab.identity) ?? []), k]));
        await Promise.all(
          [...byStudent.values()].map(async (ks) => {
            for (const k of ks) {
              await spend(wave[k], "poll:vote", { pollId: poll.id, optionId: choices[k] });
              acks[k] = await wave[k].client.emit("poll:vote", { pollId: poll.id, optionId: choices[k] });
            }
          }),
        );
        acks.forEach((ack, k) => answers.push(`${wave[k].name} poll:vote -> ${ack.ok ? "ok" : ack.error.code}`));
        acks.forEach((ack, k) => {
          expectErrorShape(ack);
          if (!ack.ok && ack.error.code === "RATE_LIMITED") return void stats.rateLimited++;
          expect(ack, `${where()}: wave vote ${k} by ${wave[k].name}`).toEqual({
            ok: true,
            data: { pollId: poll.id, round: poll.round, optionId: choices[k], rev: expect.any(Number) },
          });
          stats.votes++;
        });
        const types = new Set(await writesSince(s));
        expect(
          [...types].every((t) => t === "poll:voted"),
          `${where()}: a vote wave wrote ${short([...types])}`,
        ).toBe(true);
        return true;
      },
    ],
    badVote: [
      5,
      async () => {
        const candidates = studentTabs();
        if (!candidates.length) return false;
        const tab = rng.pick(candidates);
        const s = state();
        const pollId = rng.chance(0.5) && s.activePollId ? s.activePollId : pickPollId();
        const optionId = rng.pick(["o9", "o0", "O1", "", "x".repeat(64), ...PROTOTYPE_KEYS, "o1", "o2"]);
        if (optionId === "" || pollId === "") {
          await command(tab, "poll:vote", { pollId, optionId }, "BAD_REQUEST", []);
          return true;
        }
        await vote(tab, pollId, optionId);
        return true;
      },
    ],

    reload: [
      3,
      async () => {
        // A page reload: the old socket closes and the new one connects at once, in either order at the server.
        const candidates = studentTabs();
        if (!candidates.length) return false;
        const tab = rng.pick(candidates);
        const identity = tab.identity!;
        closeTab(tab);
        await rejoin(identity, rng.pick([undefined, identity.nickname, nicknameFor(rng, 0)]), "reload");
        return true;
      },
    ],
    secondTabRenamed: [
      1,
      async () => {
        // Another tab of the same browser, where the student typed a different name.
        const here = identities.filter((i) => !i.removed && tabs.some((t) => t.open && t.identity === i));
        if (!here.length) return false;
        const identity = rng.pick(here);
        await rejoin(identity, `${identity.nickname.slice(0, 20)} ${rng.hex(3)}`, "second tab, renamed");
        return true;
      },
    ],
    raceVotesWithTeacher: [
      3,
      async () => {
        // Votes around the teacher closing, reopening, hiding results or removing a voter. The room takes commands one
        // at a time, so each vote lands before or after the teacher's: the seed draws where the teacher's goes among
        // them, and each is sent once the one before is answered (a replay of the seed meets the same order).
        const s = state();
        const poll = activePoll(s);
        const voters = studentTabs();
        if (!poll || voters.length < 3) return false;
        const wave = Array.from({ length: rng.range(3, Math.min(10, voters.length)) }, () => rng.pick(voters));
        const choices = wave.map(() => rng.pick(poll.options).id);
        const move = rng.pick(["close", "reopen", "results", "remove", "openNew", "pause"] as const);
        const teacherAt = rng.int(wave.length + 1);
        const victim = move === "remove" ? wave[0].identity! : null;
        const kicked = victim ? tabs.filter((t) => t.open && t.identity === victim) : [];
        run.label = `race: ${wave.length} votes vs ${move} after ${teacherAt}`;
        const host = await hostTab();
        const teacherPayload =
          move === "close"
            ? { pollId: poll.id }
            : move === "reopen"
              ? { pollId: poll.id }
              : move === "results"
                ? { visible: !s.resultsVisible }
                : move === "remove"
                  ? { participantId: victim!.participantId }
                  : move === "pause"
                    ? { paused: !s.paused }
                    : { kind: "custom", question: "Race?", options: ["yes", "no"] };
        const teacherEvent: EventName =
          move === "close"
            ? "poll:close"
            : move === "reopen"
              ? "poll:reopen"
              : move === "results"
                ? "results:show"
                : move === "remove"
                  ? "participant:remove"
                  : move === "pause"
                    ? "class:pause"
                    : "poll:open";
        const teacher = async () => {
          // The kick may land before the ack: the victim's tabs are expected to go.
          for (const tab of kicked) tab.open = false;
          const ack = await emitMaybe(host, teacherEvent, teacherPayload);
          if (victim && ack !== "no reply" && ack.ok) {
            victim.removed = true;
            // Gone before the next vote is sent: a kicked tab's vote is then not sent at all, never left unanswered.
            await waitUntil(() => kicked.every((t) => !t.client.socket.connected), CONVERGE_TIMEOUT_MS).catch(() => undefined);
            for (const tab of kicked) expect(tab.client.socket.connected, `${where()}: ${tab.name} was not kicked`).toBe(false);
          } else for (const tab of kicked) tab.open = true;
          return ack;
        };
        let teacherAck: Ack<unknown> | "no reply" = "no reply";
        const voteAcks: (Ack<unknown> | "no reply" | "not sent")[] = [];
        for (let k = 0; k <= wave.length; k++) {
          if (k === teacherAt) teacherAck = await teacher();
          if (k === wave.length) break;
          const tab = wave[k];
          if (!tab.client.socket.connected) voteAcks.push("not sent");
          else voteAcks.push(await emitMaybe(tab, "poll:vote", { pollId: poll.id, optionId: choices[k] }));
        }
        const at = `${where()}: ${host.name} ${teacherEvent} ${short(teacherPayload)}`;
        expect(teacherAck, `${at} got no reply`).not.toBe("no reply");
        if (teacherAck !== "no reply") {
          expectErrorShape(teacherAck);
          const allowed: Outcome[] =
            move === "close"
              ? poll.status === "open"
                ? ["ok"]
                : ["POLL_CLOSED"]
              : move === "reopen" || move === "openNew"
                ? poll.status === "open"
                  ? ["POLL_ALREADY_OPEN"]
                  : ["ok"]
                : ["ok"];
          expect([...allowed, "RATE_LIMITED"], `${at} answered ${short(teacherAck)}`).toContain(
            teacherAck.ok ? "ok" : teacherAck.error.code,
          );
        }
        voteAcks.forEach((ack, k) => {
          const tab = wave[k];
          const gone = victim !== null && tab.identity === victim && victim.removed;
          if (ack === "no reply" || ack === "not sent") return void expect(gone, `${where()}: ${tab.name}'s vote: ${ack}`).toBe(true);
          expectErrorShape(ack);
          const code = ack.ok ? "ok" : ack.error.code;
          expect(
            ["ok", "POLL_CLOSED", "NO_SUCH_POLL", "REMOVED", "RATE_LIMITED", ...(s.paused || move === "pause" ? ["CLASS_PAUSED"] : [])],
            `${where()}: ${tab.name} vote answered ${short(ack)}`,
          ).toContain(code);
          if (ack.ok) expect((ack.data as MyVote).pollId, `${where()}: vote receipt`).toBe(poll.id);
        });
        return true;
      },
    ],
    twoTeachersAtOnce: [
      2,
      async () => {
        // Two teacher tabs open a poll each: the room applies commands one at a time, so at most one opens.
        const hosts = openTabs("host");
        if (hosts.length < 2) return false;
        const before = state();
        const wasOpen = activePoll(before)?.status === "open";
        const a = await hostTab();
        let b = await hostTab();
        if (b === a) b = hosts.find((t) => t !== a)!;
        // The room takes one at a time: the seed draws which comes first, and the second is sent once the first is
        // answered (a replay of the seed meets the same order).
        const openA = () => emitMaybe(a, "poll:open", { kind: "next-step" });
        const openB = () =>
          emitMaybe(b, "poll:open", { kind: "custom", question: "Which first?", options: ["PVC", "Pod", "PV"], correctIndex: 1 });
        const aFirst = rng.chance(0.5);
        const ackFirst = await (aFirst ? openA() : openB());
        const ackSecond = await (aFirst ? openB() : openA());
        const [ackA, ackB] = aFirst ? [ackFirst, ackSecond] : [ackSecond, ackFirst];
        const codes = [ackA, ackB].map((ack) => (ack === "no reply" ? "no reply" : ack.ok ? "ok" : ack.error.code));
        expect(codes.includes("no reply"), `${where()}: ${short(codes)}`).toBe(false);
        expect(codes.filter((c) => c === "ok").length, `${where()}: two polls opened at once: ${short(codes)}`).toBeLessThanOrEqual(1);
        if (wasOpen)
          expect(
            codes.every((c) => c === "POLL_ALREADY_OPEN" || c === "RATE_LIMITED"),
            `${where()}: ${short(codes)}`,
          ).toBe(true);
        return true;
      },
    ],
  };
  return actions;
}
