import { expect } from "vitest";
import { NICKNAME_MAX, cleanText, type MyVote } from "../../../lib/protocol";
import { waitUntil } from "../harness";
import { commandsFor } from "./commands";
import { voteOutcome } from "./oracles";
import { CONVERGE_TIMEOUT_MS, type FuzzRun } from "./run";
import { short, type Identity, type Outcome, type Tab } from "./wire";

/** Students join, come back and vote, each answer checked against the state before it. */
export function studentsFor(run: FuzzRun) {
  const { code, sessionId, tabs, identities, stats, where, state, openTabs, addTab, tryConnect } = run;
  const { command, writesSince } = commandsFor(run);

  async function join(raw: string | undefined, extraAuth: Record<string, unknown> = {}): Promise<void> {
    const before = state();
    const expected: Outcome = raw !== undefined && raw.length > NICKNAME_MAX * 4 ? "BAD_REQUEST" : before.locked ? "ROOM_LOCKED" : "ok";
    if (expected === "BAD_REQUEST") run.countedFailures++;
    const count = Object.keys(before.participants).length;
    const result = await tryConnect({ role: "student", code, nickname: raw, ...extraAuth });
    const what = `${where()}: join with nickname ${short(raw)}`;
    if ("error" in result) {
      if (result.error === "RATE_LIMITED") stats.rateLimited++;
      else expect(result.error, what).toBe(expected);
      expect(await writesSince(before), `${what}: a refused join wrote events`).toEqual([]);
      return;
    }
    expect(expected, `${what}: was admitted`).toBe("ok");
    const welcome = result.client.welcome!;
    const nickname = (raw === undefined ? "" : cleanText(raw, NICKNAME_MAX)) || `Student ${count + 1}`;
    expect(welcome, what).toMatchObject({ role: "student", sessionId, nickname });
    expect(typeof welcome.token === "string" && welcome.token.length >= 32, `${what}: token`).toBe(true);
    expect(Object.hasOwn(before.participants, welcome.participantId!), `${what}: reused a participant id`).toBe(false);
    expect(await writesSince(before), `${what}: wrote`).toEqual(["participant:joined"]);
    const identity = run.identityOf(welcome, nickname);
    identities.push(identity);
    addTab("student", result.client, identity, `student ${identities.length} tab 1`);
    stats.joins++;
  }

  /** Back with the stored token: same participant, same vote; a new nickname is a rename. */
  async function rejoin(identity: Identity, raw: string | undefined, why: string): Promise<void> {
    const before = state();
    const result = await tryConnect({ role: "student", code, token: identity.token, nickname: raw });
    const what = `${where()}: ${why} as ${identity.participantId} with nickname ${short(raw)}`;
    if ("error" in result) {
      if (result.error === "RATE_LIMITED") stats.rateLimited++;
      else expect(result.error, what).toBe(identity.removed ? "REMOVED" : "(admitted)");
      expect(await writesSince(before), `${what}: a refused join wrote events`).toEqual([]);
      return;
    }
    expect(identity.removed, `${what}: a removed participant got back in`).toBe(false);
    const cleaned = raw === undefined ? "" : cleanText(raw, NICKNAME_MAX);
    const renamed = cleaned !== "" && cleaned !== identity.nickname;
    if (renamed) identity.nickname = cleaned;
    const welcome = result.client.welcome!;
    expect(welcome, what).toMatchObject({
      role: "student",
      participantId: identity.participantId,
      token: identity.token,
      nickname: identity.nickname,
    });
    expect(await writesSince(before), `${what}: wrote`).toEqual(renamed ? ["participant:renamed"] : []);
    const n = tabs.filter((t) => t.identity === identity).length + 1;
    addTab("student", result.client, identity, `student ${identities.indexOf(identity) + 1} tab ${n}`);
  }

  async function vote(tab: Tab, pollId: string, optionId: string): Promise<void> {
    const identity = tab.identity!;
    const { outcome, writes } = voteOutcome(state(), identity, pollId, optionId);
    const ack = await command(tab, "poll:vote", { pollId, optionId }, outcome, writes);
    if (!ack.ok) return;
    stats.votes++;
    const mine: MyVote = { pollId, round: state().polls[pollId].round, optionId, rev: (ack.data as MyVote).rev };
    // The receipt's position: the vote's own event when it wrote one, else where the log already was.
    expect(mine.rev, `${where()}: vote receipt rev`).toBe(writes.length ? state().seq : mine.rev);
    expect(ack.data, `${where()}: vote receipt`).toEqual(mine);
    if (writes.length === 0) return;
    // A changed vote reaches every tab of that student: the voting tab by its receipt, the others as a `me` patch.
    const mirrors = tabs.filter((t) => t.open && t.identity === identity);
    await waitUntil(
      () => mirrors.every((t) => JSON.stringify(t.client.myVotes.at(-1)) === JSON.stringify(mine)),
      CONVERGE_TIMEOUT_MS,
    ).catch(() => undefined);
    for (const t of mirrors) expect(t.client.myVotes.at(-1), `${where()}: ${t.name} vote after ${tab.name} voted`).toEqual(mine);
  }

  const studentTabs = () => openTabs("student").filter((t) => t.identity && !t.identity.removed);

  return { join, rejoin, vote, studentTabs };
}
