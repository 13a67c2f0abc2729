import { io as rawConnect } from "socket.io-client";
import { expect } from "vitest";
import { FRAME_LIMITS, MAX_COMMAND_PAYLOAD_BYTES, MAX_SOCKET_MESSAGE_BYTES } from "../../../lib/constants";
import { PROTOCOL_VERSION, type Ack } from "../../../lib/protocol";
import { nestingExceeds } from "../../../server/edge/frameGuard";
import { waitUntil } from "../harness";
import { commandsFor } from "./commands";
import { garbagePayload } from "./hostile";
import { invariantsFor } from "./invariants";
import { CONVERGE_TIMEOUT_MS, COUNTED_HANDSHAKE_FAILURES_PER_SEED, type Action, type FuzzRun } from "./run";
import { COMMAND_TABLE, FUZZABLE_COMMANDS, TEACHER_COMMANDS, onTheWire, short, type EventName, type Outcome } from "./wire";

/** Hostile clients' actions, with their weights: garbage payloads, commands above their role, unknown and reserved names, bad handshakes. */
export function hostileActions(run: FuzzRun): Record<string, Action> {
  const { srv, code, hostKey, rng, stats, where, state, openTabs, tryConnect, spend, answers } = run;

  const { command, writesSince } = commandsFor(run);
  const { expectErrorShape } = invariantsFor(run);

  const actions: Record<string, Action> = {
    // ---- hostile clients
    garbage: [
      6,
      async () => {
        const tab = rng.pick(openTabs());
        const event = rng.pick(FUZZABLE_COMMANDS);
        const payload = garbagePayload(rng);
        // The frame on the wire is `2<ack id>["event",payload]`; the ack id is 1 to 6 digits.
        const body = JSON.stringify([event, onTheWire(payload)]);
        let expected: Outcome | Outcome[] | null;
        if (body.length + 2 > FRAME_LIMITS.maxFrameChars || nestingExceeds(body, FRAME_LIMITS.maxDepth)) expected = "PAYLOAD_TOO_LARGE";
        else if (!COMMAND_TABLE[event].roles.includes(tab.role))
          expected = COMMAND_TABLE[event].roles.includes("student") ? "NOT_STUDENT" : "NOT_HOST";
        // session:sync carries nothing, so the server may ignore what it is sent.
        else if (event === "session:sync") expected = ["ok", "BAD_REQUEST"];
        else expected = COMMAND_TABLE[event].schema.safeParse(onTheWire(payload) ?? {}).success ? null : "BAD_REQUEST";
        // Right at the limit the ack id's length decides.
        if (expected !== null && expected !== "PAYLOAD_TOO_LARGE" && body.length + 7 > FRAME_LIMITS.maxFrameChars)
          expected = ["PAYLOAD_TOO_LARGE", ...[expected].flat()];
        // A teacher's projectors:close whose payload still parses closes every projector view: those tabs are expected to go.
        const closing = event === "projectors:close" && tab.role === "host" ? openTabs("projector") : [];
        for (const t of closing) t.open = false;
        const ack = await command(tab, event, payload, expected, null);
        if (ack.ok && closing.length > 0) {
          await waitUntil(() => closing.every((t) => !t.client.socket.connected), CONVERGE_TIMEOUT_MS).catch(() => undefined);
          for (const t of closing) {
            expect(t.client.socket.connected, `${where()}: ${t.name} was not closed`).toBe(false);
            expect(t.client.kicked, `${where()}: ${t.name} close reason`).toContainEqual(
              expect.objectContaining({ code: "PROJECTOR_CLOSED" }),
            );
          }
        } else for (const t of closing) t.open = true;
        return true;
      },
    ],
    teacherCommandFromClass: [
      3,
      async () => {
        const candidates = openTabs().filter((t) => t.role !== "host");
        if (!candidates.length) return false;
        const tab = rng.pick(candidates);
        const event = rng.pick(TEACHER_COMMANDS);
        const payload = rng.pick([
          { delta: 1 },
          { stepIndex: 3 },
          { mode: "Immediate" },
          { kind: "next-step" },
          { pollId: state().activePollId ?? "p" },
          { visible: true },
          { locked: true },
          { participantId: tab.identity?.participantId ?? "x" },
          {},
        ]);
        await command(tab, event, payload, "NOT_HOST", []);
        return true;
      },
    ],
    voteFromNonStudent: [
      1,
      async () => {
        const candidates = openTabs().filter((t) => t.role !== "student");
        const pollId = state().activePollId;
        if (!candidates.length || !pollId) return false;
        await command(rng.pick(candidates), "poll:vote", { pollId, optionId: "o1" }, "NOT_STUDENT", []);
        return true;
      },
    ],
    unknownEvent: [
      2,
      async () => {
        const tab = rng.pick(openTabs());
        const name = rng.pick([
          "admin:nuke",
          "__proto__",
          "constructor",
          "toString",
          "hasOwnProperty",
          "session:welcome",
          "session:patch",
          "error",
          "step:GO",
          "x".repeat(100),
        ]);
        await command(tab, name as EventName, { stepIndex: 1 }, "UNKNOWN_EVENT", []);
        return true;
      },
    ],
    reservedEvent: [
      1,
      async () => {
        // Names socket.io reserves, sent as raw packets (the client library refuses to emit them):
        // the server answers UNKNOWN_EVENT like any other unknown name, and the connection stays.
        const candidates = openTabs().filter((t) => t.role !== "host");
        if (!candidates.length) return false;
        const tab = rng.pick(candidates);
        const name = rng.pick(["disconnect", "disconnecting", "connect", "newListener", "removeListener", "connect_error"]);
        run.label = `reservedEvent ${name} from ${tab.name}`;
        const raw = tab.client.socket as unknown as { packet(p: unknown): void; acks: Record<number, (r: unknown) => void> };
        const id = 1_000_000 + rng.int(1_000_000);
        await spend(tab, name, {});
        const reply = await new Promise<unknown>((resolve) => {
          const timer = setTimeout(() => resolve("no reply"), 1_500);
          raw.acks[id] = (r) => {
            clearTimeout(timer);
            resolve(r);
          };
          raw.packet({ type: 2, id, data: [name, {}], options: { compress: true } });
        });
        answers.push(`${tab.name} ${name} -> ${short(reply)}`);
        expect(reply, `${where()}: a reserved event name got no named refusal`).toMatchObject({
          ok: false,
          error: { code: "UNKNOWN_EVENT" },
        });
        expect(tab.client.socket.connected, `${where()}: the connection closed after a reserved event name`).toBe(true);
        return true;
      },
    ],
    missingPayload: [
      1.5,
      async () => {
        // docs/protocol.md: a missing payload is treated as {}, and every command gets exactly one reply.
        const tab = rng.pick(openTabs());
        const event = rng.pick(["session:sync", "step:move", "poll:vote", "results:show"] as const);
        const extraArgs = rng.chance(0.5);
        await spend(tab, event, extraArgs ? [{}, "extra"] : null);
        const reply = await new Promise<Ack<unknown> | "no reply">((resolve) => {
          const timer = setTimeout(() => resolve("no reply"), 1_500);
          const args: unknown[] = extraArgs ? [{}, "extra"] : [];
          (tab.client.socket.emit as (e: string, ...a: unknown[]) => void)(event, ...args, (r: Ack<unknown>) => {
            clearTimeout(timer);
            resolve(r);
          });
        });
        expect(reply, `${where()}: ${tab.name} ${event} with ${extraArgs ? "an extra argument" : "no payload"} got no reply`).not.toBe(
          "no reply",
        );
        if (reply !== "no reply") expectErrorShape(reply);
        const outcome = reply === "no reply" ? reply : reply.ok ? "ok" : reply.error.code;
        answers.push(`${tab.name} ${event} (${extraArgs ? "extra argument" : "no payload"}) -> ${outcome}`);
        return true;
      },
    ],
    tooLargeCommand: [
      1,
      async () => {
        const tab = rng.pick(openTabs());
        const payload = { pollId: "p", optionId: "x".repeat(MAX_COMMAND_PAYLOAD_BYTES + rng.int(1_000)) };
        await command(tab, rng.pick(FUZZABLE_COMMANDS), payload, "PAYLOAD_TOO_LARGE", []);
        expect(tab.client.socket.connected, `${where()}: a refused oversized command dropped the socket`).toBe(true);
        return true;
      },
    ],
    badHandshake: [
      2,
      async () => {
        const cases: { auth: Record<string, unknown>; expect: Outcome; counted: boolean }[] = [
          { auth: { v: undefined, role: "student", code }, expect: "CLIENT_TOO_OLD", counted: true },
          { auth: { v: "1", role: "student", code }, expect: "CLIENT_TOO_OLD", counted: true },
          // The previous protocol's number (a page loaded before the upgrade), with a valid host key.
          { auth: { v: PROTOCOL_VERSION - 1, role: "host", code, hostKey }, expect: "CLIENT_TOO_OLD", counted: true },
          { auth: { v: 1.5, role: "projector", code }, expect: "CLIENT_TOO_OLD", counted: true },
          { auth: { role: "admin", code }, expect: "BAD_REQUEST", counted: true },
          { auth: { role: "student", code: 123456 }, expect: "BAD_REQUEST", counted: true },
          { auth: { role: "projector", code: "x".repeat(17) }, expect: "BAD_REQUEST", counted: true },
          { auth: { role: "host", code }, expect: "NOT_HOST", counted: true },
          { auth: { role: "host", code, hostKey: rng.hex(43) }, expect: "NOT_HOST", counted: true },
          { auth: { role: "host", code, hostKey: hostKey.slice(0, -1) }, expect: "NOT_HOST", counted: true },
          { auth: { role: "host", code, hostKey: "k".repeat(129) }, expect: "BAD_REQUEST", counted: true },
          { auth: { role: "student", code: "ZZZZZZ" }, expect: "NO_SUCH_SESSION", counted: true },
          { auth: { role: "projector", code: "__proto__" }, expect: "NO_SUCH_SESSION", counted: true },
          { auth: { role: "student", code, token: 42 }, expect: "BAD_REQUEST", counted: true },
          { auth: { role: "student", code, nickname: "x".repeat(10_000) }, expect: "BAD_REQUEST", counted: true },
          // Admitted: a messy but valid code, and a host key offered by a projector (ignored).
          { auth: { role: "projector", code: ` ${code.slice(0, 3).toLowerCase()}-${code.slice(3)} ` }, expect: "ok", counted: false },
          { auth: { role: "projector", code, hostKey, token: "t" }, expect: "ok", counted: false },
          { auth: JSON.parse(`{"role":"projector","code":"${code}","__proto__":{"role":"host"}}`), expect: "ok", counted: false },
        ];
        const affordable = cases.filter((c) => !c.counted || run.countedFailures < COUNTED_HANDSHAKE_FAILURES_PER_SEED);
        const chosen = rng.pick(affordable);
        if (chosen.counted) run.countedFailures++;
        const before = state();
        // A locked room admits no new projector unless it holds the host key.
        const expected: Outcome =
          chosen.expect === "ok" && before.locked && chosen.auth.hostKey !== hostKey ? "ROOM_LOCKED" : chosen.expect;
        const result = await tryConnect(chosen.auth);
        const what = `${where()}: handshake ${short(chosen.auth)}`;
        if ("error" in result) {
          if (result.error === "RATE_LIMITED") stats.rateLimited++;
          else expect(result.error, what).toBe(expected);
        } else {
          expect(expected, `${what} was admitted`).toBe("ok");
          expect(result.client.welcome?.role, what).toBe("projector");
          result.client.close();
        }
        expect(await writesSince(before), `${what}: wrote`).toEqual([]);
        return true;
      },
    ],
    nonObjectAuth: [
      0.5,
      async () => {
        const socket = rawConnect(srv.url, {
          transports: ["websocket"],
          reconnection: false,
          forceNew: true,
          auth: (cb) => cb(rng.pick(["junk", [1, 2], 42]) as never),
        });
        const outcome = await new Promise<string>((resolve) => {
          const timer = setTimeout(() => resolve("silence"), 1_500);
          socket.once("connect", () => (clearTimeout(timer), resolve("connected")));
          socket.once("connect_error", () => (clearTimeout(timer), resolve("refused")));
          socket.once("disconnect", () => (clearTimeout(timer), resolve("closed")));
        });
        socket.close();
        expect(outcome, `${where()}: a non-object auth was admitted`).not.toBe("connected");
        return true;
      },
    ],
  };
  return actions;
}

/** Once per seed: a message over the transport cap closes only that connection. */
export async function overTransportCap(run: FuzzRun): Promise<void> {
  const { rng, trail, where, openTabs } = run;
  const { checkServerInvariants } = invariantsFor(run);
  const candidates = openTabs().filter((t) => t.role !== "host");
  const tab = rng.pick(candidates);
  run.label = `message over ${MAX_SOCKET_MESSAGE_BYTES} bytes from ${tab.name}`;
  trail.push(run.label);
  const payload = { pollId: "x".repeat(MAX_SOCKET_MESSAGE_BYTES + 10), optionId: "o1" };
  await run.spend(tab, "poll:vote", payload);
  (tab.client.socket.emit as (e: string, p: unknown) => void)("poll:vote", payload);
  await waitUntil(() => !tab.client.socket.connected, CONVERGE_TIMEOUT_MS).catch(() => undefined);
  expect(tab.client.socket.connected, `${where()}: the oversized message did not close its connection`).toBe(false);
  tab.open = false;
  await checkServerInvariants();
}
