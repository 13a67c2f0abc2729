import type { Socket } from "socket.io-client";
import { PROTOCOL_VERSION, type Patch } from "../lib/protocol";
import type { Options } from "./addressFloodOptions";
import { connectSocket } from "./client";
import { now } from "./messages";
import { firstClassSession } from "./patch";
import { sleep, withTimeout } from "./wait";

/**
 * bench/addressFlood.ts's two rooms: room A, the quiet class that is measured,
 * and room B, the attacker's, with its questions and the flood's identities.
 */

export async function createSession(url: string): Promise<{ code: string; hostKey: string }> {
  const res = await fetch(`${url}/api/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ title: "Address flood" }),
  });
  if (res.status !== 201) throw new Error(`POST /api/sessions: ${res.status} ${await res.text()}`);
  return (await res.json()) as { code: string; hostKey: string };
}

/** A socket that has joined (its first snapshot arrived), or an error with the refusal's code. */
export async function joined(
  url: string,
  auth: Record<string, unknown>,
  address: string,
): Promise<{ socket: Socket; token?: string; ms: number }> {
  const t0 = now();
  const socket = connectSocket(url, { v: PROTOCOL_VERSION, ...auth }, address, 10_000);
  let token: string | undefined;
  socket.once("session:welcome", (w: { token?: string }) => (token = w.token));
  try {
    await withTimeout(firstClassSession(socket), 15_000, "join");
  } catch (err) {
    socket.close();
    throw err;
  }
  return { socket, token, ms: now() - t0 };
}

/** ~280 characters of question text, different per question. */
const questionText = (i: number) =>
  `Question ${i}: ${"why does the claim wait for the pod before the volume is bound? ".repeat(5)}`.slice(0, 280);

/** Room B as the attacker prepares it: questions asked by many students (from many addresses), and flood identities. */
export async function prepareRoomB(url: string, o: Options): Promise<{ code: string; tokens: string[]; wholeBytes: number }> {
  const room = await createSession(url);
  const askers = Math.ceil(o.questions / 3);
  for (let i = 0; i < askers; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, askers - i) }, async (_, k) => {
        const n = i + k;
        const { socket } = await joined(url, { role: "student", code: room.code, nickname: `Asker ${n}` }, `127.0.3.${1 + (n % 250)}`);
        for (let q = 0; q < 3 && n * 3 + q < o.questions; q++) {
          const ack = (await socket
            .timeout(10_000)
            .emitWithAck("question:ask", { text: questionText(n * 3 + q), target: { kind: "step", stepIndex: 0 } })) as { ok: boolean };
          if (!ack.ok) throw new Error(`question:ask: ${JSON.stringify(ack)}`);
        }
        socket.close();
      }),
    );
  }
  const tokens: string[] = [];
  for (let i = 0; i < o.sockets; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, o.sockets - i) }, async (_, k) => {
        const n = i + k;
        const j = await joined(url, { role: "student", code: room.code, nickname: `Flood ${n}` }, `127.0.4.${1 + (n % 250)}`);
        j.socket.close();
        return j.token!;
      }),
    );
    tokens.push(...batch);
  }
  // What a whole patch of the class's records weighs now (the question batches are sent within 250 ms).
  await sleep(500);
  const probe = connectSocket(url, { v: PROTOCOL_VERSION, role: "projector", code: room.code }, "127.0.0.98", 10_000);
  const wholeBytes = await withTimeout(
    new Promise<number>((resolve) => probe.on("session:patch", (p: Patch) => p.whole && resolve(JSON.stringify(p).length))),
    10_000,
    "room B's whole patch",
  );
  probe.close();
  return { code: room.code, tokens, wholeBytes };
}

export interface RoomA {
  code: string;
  teacher: Socket;
  students: Socket[];
}

export async function prepareRoomA(url: string, o: Options): Promise<RoomA> {
  const room = await createSession(url);
  const teacher = connectSocket(url, { v: PROTOCOL_VERSION, role: "host", code: room.code, hostKey: room.hostKey }, "127.0.0.1", 10_000);
  await withTimeout(new Promise((r) => teacher.once("session:patch", r)), 10_000, "teacher join");
  const students = await Promise.all(
    Array.from(
      { length: o.students },
      async (_, i) => (await joined(url, { role: "student", code: room.code, nickname: `A${i}` }, `127.0.0.${2 + (i % 20)}`)).socket,
    ),
  );
  return { code: room.code, teacher, students };
}
