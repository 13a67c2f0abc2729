import { expect } from "vitest";
import type { Ack } from "../../../lib/protocol";
import { myVoteOf } from "../../../lib/protocol/replica";
import type { SessionState } from "../../../lib/session";
import { registry } from "../../../server/ops/metrics";
import { invariantsFor } from "./invariants";
import type { FuzzRun } from "./run";
import { short, type EventName, type EventType, type Outcome, type Tab } from "./wire";

/** The server's rate-limit refusals so far, by scope (its metrics: the fuzz's server runs in this process). */
async function rateLimitsSoFar(): Promise<string> {
  const metric = await registry.getSingleMetric("classroom_rate_limited_total")?.get();
  return (metric?.values ?? []).map((v) => `${String(v.labels.scope)} ${v.value}`).join(", ");
}

/** Commands sent as the fuzz sends them, each answer checked with what it wrote to the log. */
export function commandsFor(run: FuzzRun) {
  const { stats, where, state, durableEvents, spend, answers } = run;
  const { expectErrorShape, checkServerInvariants } = invariantsFor(run);

  /** Durable writes since `before`, minus a close fired by a poll's own countdown (unless a close is what we expect). */
  async function writesSince(before: SessionState, expected: EventType[] = []): Promise<EventType[]> {
    const events = (await durableEvents()).filter((e) => e.seq > before.seq);
    const timerMayClose = !expected.includes("poll:closed");
    return events
      .filter((e) => !(timerMayClose && e.type === "poll:closed" && before.polls[e.pollId]?.closesAt != null))
      .map((e) => e.type);
  }

  /**
   * Sends one acknowledged command and checks the reply and what it wrote.
   * `allowed` null accepts anything but INTERNAL; `writes` null skips the write check.
   */
  async function command(
    tab: Tab,
    event: EventName,
    payload: unknown,
    allowed: Outcome | Outcome[] | null,
    writes: EventType[] | null,
  ): Promise<Ack<unknown>> {
    await spend(tab, event, payload);
    const before = state();
    const ack = await tab.client.emit(event, payload as never);
    expectErrorShape(ack);
    const outcome: Outcome = ack.ok ? "ok" : ack.error.code;
    // A refusal for its rate says which limit it met (the server's own counts, by scope), for the failure message.
    answers.push(`${tab.name} ${event} -> ${outcome}${outcome === "RATE_LIMITED" ? ` (${await rateLimitsSoFar()})` : ""}`);
    const expected = allowed === null ? null : [allowed].flat();
    // On a surprising answer, invariants first: a corrupted state is the more useful report.
    if (expected ? !expected.includes(outcome) && outcome !== "RATE_LIMITED" : outcome === "INTERNAL") await checkServerInvariants();
    const what = `${where()}: ${tab.name} ${event} ${short(payload)} answered ${short(ack)}`;
    if (outcome === "RATE_LIMITED" && !expected?.includes("RATE_LIMITED")) {
      stats.rateLimited++;
      expect(await writesSince(before), `${what}: a refused command wrote events`).toEqual([]);
      return ack;
    }
    if (expected) expect(expected, what).toContain(outcome);
    else expect(outcome, what).not.toBe("INTERNAL");
    if (!ack.ok) expect(await writesSince(before), `${what}: a refused command wrote events`).toEqual([]);
    else if (writes) expect(await writesSince(before, writes), `${what}: wrote`).toEqual(writes);
    return ack;
  }

  /** An acknowledged emit that may legitimately get no reply (its socket is being kicked). */
  async function emitMaybe(tab: Tab, event: EventName, payload: unknown, timeoutMs = 1_500): Promise<Ack<unknown> | "no reply"> {
    await spend(tab, event, payload);
    const reply = await new Promise<Ack<unknown> | "no reply">((resolve) => {
      const timer = setTimeout(() => resolve("no reply"), timeoutMs);
      (tab.client.socket.emit as (e: string, p: unknown, cb: (r: Ack<unknown>) => void) => void)(event, payload, (r) => {
        clearTimeout(timer);
        // As the bundled client does: the vote's receipt is this tab's vote (other tabs get it as a `me` patch).
        if (event === "poll:vote" && r.ok) {
          const before = myVoteOf(tab.client.replica);
          tab.client.replica.putOwn("me", "vote", r.data);
          const after = myVoteOf(tab.client.replica);
          if (after !== before) tab.client.myVotes.push(after);
        }
        resolve(r);
      });
    });
    answers.push(`${tab.name} ${event} -> ${reply === "no reply" ? reply : reply.ok ? "ok" : reply.error.code}`);
    return reply;
  }

  return { writesSince, command, emitMaybe };
}
