import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { workers } from "./edge";

// The flooding client, on a worker thread of its own.

export interface FloodStats {
  sentFrames: number;
  sentBytes: number;
  /** Refusals acknowledged, by error code. */
  refused: Record<string, number>;
  closedByServer: number;
  joins: number;
}

const FLOOD_WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const WebSocket = require(workerData.wsPath);
const { url, localAddress, connections, auth } = workerData;
const nested = (depth, inner = "1") => "[".repeat(depth) + inner + "]".repeat(depth);
// The worst a client can send and stay connected. Frames the guard lets through to JSON.parse when they are within
// budget: 16 KB (the most it accepts) of empty arrays, the most allocations per byte, as an unknown event, a vote, a
// resync and a teacher command. And frames it must refuse unread: 18 KB of brackets or text (just under the
// transport's cap, which would close the connection), too deep, a reserved name.
const trees = (head) => {
  let body = head + ",[";
  let id = 0;
  while (body.length < 16300) body += (id++ % 2 ? "{}," : "[],");
  return body + "[]]]";
};
const worst = [
  "42" + trees('["flood:unknown"'),
  "42" + trees('["poll:vote"'),
  "4290" + trees('["session:sync"'),
  "42" + trees('["step:go"'),
  '4291["poll:vote",' + nested(9000) + ']',
  '42["x","' + "z".repeat(18000) + '"]',
  '4292["poll:vote",{"pollId":"p","optionId":"o1","x":' + nested(2000) + '}]',
  '4293["connect",{}]',
];
const stats = { sentFrames: 0, sentBytes: 0, refused: {}, closedByServer: 0, joins: 0 };
const sockets = new Set();
let stopping = false;
function one(n) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url.replace(/^http/, "ws") + "/socket.io/?EIO=4&transport=websocket", { localAddress });
    let i = n;
    let joined = false;
    const pump = () => {
      while (!stopping && joined && ws.readyState === WebSocket.OPEN && ws.bufferedAmount < 256 * 1024) {
        const frame = worst[i++ % worst.length];
        ws.send(frame);
        stats.sentFrames += 1;
        stats.sentBytes += frame.length;
      }
      if (!stopping && ws.readyState === WebSocket.OPEN) setTimeout(pump, 1);
    };
    ws.on("message", (data, isBinary) => {
      if (isBinary) return;
      const text = data.toString();
      if (text === "2") return ws.send("3");
      if (text.startsWith("0{")) return ws.send("40" + JSON.stringify(auth));
      if (text.startsWith("40")) {
        joined = true;
        stats.joins += 1;
        return pump();
      }
      const refused = text.startsWith("43") ? /^43\\d+\\[\\{"ok":false,"error":\\{"code":"(\\w+)"/.exec(text) : null;
      if (!refused) return;
      // The first refusal tells the test that the flood has reached the server's guard.
      if (Object.keys(stats.refused).length === 0) parentPort.postMessage({ refusing: true });
      stats.refused[refused[1]] = (stats.refused[refused[1]] ?? 0) + 1;
    });
    sockets.add(ws);
    ws.on("error", () => undefined);
    ws.on("close", () => {
      sockets.delete(ws);
      if (!stopping) stats.closedByServer += 1;
      resolve();
    });
  });
}
async function loop(n) {
  while (!stopping) {
    await one(n);
    if (!stopping) await new Promise((r) => setTimeout(r, 5));
  }
}
const loops = Array.from({ length: connections }, (_, n) => loop(n));
parentPort.on("message", async () => {
  // Stop sending, drop every connection (the server may not be reading them: no closing handshake), report once closed.
  stopping = true;
  for (const ws of sockets) ws.terminate();
  await Promise.all(loops);
  parentPort.postMessage({ stats });
});
`;

/**
 * Starts a flood on a worker thread; `refusing` resolves once the server has refused one of its frames (the flood is
 * on), `stop()` ends it and reports what it did.
 */
export function startFlood(options: { url: string; localAddress: string; connections: number; auth: Record<string, unknown> }) {
  const wsPath = createRequire(import.meta.url).resolve("ws");
  const worker = new Worker(FLOOD_WORKER, { eval: true, workerData: { ...options, wsPath } });
  workers.push(worker);
  const message = <T>(pick: (m: { refusing?: true; stats?: FloodStats }) => T | undefined) =>
    new Promise<T>((resolve) => {
      const listen = (m: { refusing?: true; stats?: FloodStats }) => {
        const picked = pick(m);
        if (picked === undefined) return;
        worker.off("message", listen);
        resolve(picked);
      };
      worker.on("message", listen);
    });
  const refusing = message((m) => m.refusing);
  return {
    refusing,
    async stop(): Promise<FloodStats> {
      const stats = message((m) => m.stats);
      worker.postMessage("stop");
      const result = await stats;
      await worker.terminate();
      return result;
    },
  };
}
