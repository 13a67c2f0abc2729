import type { Worker } from "node:worker_threads";
import { afterEach } from "vitest";
import type { Ack } from "../../../lib/protocol";
import { rawJoin, type ClientSocket, type RawJoin, type RawOptions, type RawSocket, type TcpHolder } from "../harness";
import { sleep } from "./attacker";

/**
 * The network edge, attacked from outside (issue 10): frames written by hand
 * on a raw WebSocket (too large, too deep, reserved names, binary, floods),
 * bare TCP connections that hold file descriptors, slow headers, and a noisy
 * neighbour flooding from its own address while another class goes on.
 * Other loopback addresses (127.0.0.2…) stand for other machines.
 *
 * This is what those tests share: what they open, closed after each test, and
 * how they read the frames. The attacks are in outsiderNetFrames.test.ts,
 * outsiderNetNoisy.test.ts and outsiderNetConnections.test.ts.
 */

export const raws: RawSocket[] = [];
export const holders: TcpHolder[] = [];
export const ioSockets: ClientSocket[] = [];
export const workers: Worker[] = [];
/** Registered after each describe's serverPerTest, so it runs before the server closes (hooks unwind in reverse). */
export function cleanUpAfterEach() {
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.terminate();
    for (const r of raws.splice(0)) r.close();
    for (const h of holders.splice(0)) h.destroy();
    for (const s of ioSockets.splice(0)) s.disconnect();
  });
}

export async function join(url: string, auth: Record<string, unknown>, options: RawOptions = {}): Promise<RawJoin> {
  const joined = await rawJoin(url, auth, options);
  raws.push(joined.raw);
  if (!joined.ok) throw new Error(`join refused: ${joined.reply}`);
  return joined;
}

/** Resolves true if the connection closes within `ms`, false if it is still open then. */
export const closesWithin = (raw: { closed: Promise<void> }, ms: number) =>
  Promise.race([raw.closed.then(() => true), sleep(ms).then(() => false)]);

/** Acknowledgements received so far, by id. */
export function acks(raw: RawSocket): Map<number, Ack<unknown>> {
  const out = new Map<number, Ack<unknown>>();
  for (const f of raw.frames) {
    const m = /^43(\d+)(\[.*)$/s.exec(f);
    if (m) out.set(Number(m[1]), (JSON.parse(m[2]) as [Ack<unknown>])[0]);
  }
  return out;
}
export const codeOf = (a: Ack<unknown> | undefined) => (a && !a.ok ? a.error.code : a ? "ok" : "none");
export const nested = (depth: number, inner = "1") => "[".repeat(depth) + inner + "]".repeat(depth);
