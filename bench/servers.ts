import type { ChildProcess } from "node:child_process";
import path from "node:path";
import { freePort, startRedis, stopProcess } from "../tests/support/loopback";
import { CLUSTER, CPU_PROF_DIR, profileArgs } from "./cli";
import { liveNodeIds } from "./clusterState";
import type { ServerKind } from "./messages";
import { spawnTracked, tempDir, track } from "./processes";
import { sleep } from "./wait";
import { SERVER_NODE_FLAGS } from "../lib/constants";

/**
 * The servers under test, each started fresh for one run of a cell: the
 * product (one process), the bare socket.io baseline, or the cluster (K
 * product nodes on one throwaway Redis).
 */

export interface RunningServer {
  kind: ServerKind;
  /** the server processes whose RSS is measured: one, or the K cluster nodes */
  procs: ChildProcess[];
  /** where the teacher connects and the session is created (cluster: node 1) */
  url: string;
  /** where students connect, round-robin by global index */
  urls: string[];
  /** the processes whose CPU time is measured: the server processes, and for the cluster its redis-server too */
  cpuPids: number[];
  output(): string;
  stop(): Promise<void>;
}

const serverGraceMs = () => (CPU_PROF_DIR ? 20_000 : 3_000);

async function waitHealthy(url: string, proc: ChildProcess, output: () => string): Promise<void> {
  const start = Date.now();
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited (${proc.exitCode}):\n${output()}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() - start > 30_000) throw new Error(`server did not start within 30 s:\n${output()}`);
    await sleep(50);
  }
}

/** `env`: extra environment for the product's process (the school raises SESSION_CREATE_LIMIT to create its 200 sessions). */
export async function startServer(kind: ServerKind, env: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  if (kind === "bare") {
    const { proc, output } = spawnTracked(
      [...profileArgs, ...SERVER_NODE_FLAGS, "--expose-gc", "--import", "tsx", path.join(__dirname, "bareServer.ts"), `--port=${port}`],
      {
        ...process.env,
        NODE_ENV: "production",
      },
    );
    await waitHealthy(url, proc, output);
    return { kind, procs: [proc], url, urls: [url], cpuPids: [proc.pid!], output, stop: () => stopProcess(proc, serverGraceMs()) };
  }
  if (kind === "cluster") return startCluster(CLUSTER);
  const node = await startProductNode(port, env);
  return {
    kind,
    procs: [node.proc],
    url,
    urls: [url],
    cpuPids: [node.proc.pid!],
    output: node.output,
    stop: () => stopProcess(node.proc, serverGraceMs()),
  };
}

/** One `node --max-semi-space-size=32 --expose-gc --import tsx server/index.ts` (SERVER_NODE_FLAGS, as `npm run serve`) with a temporary DATA_DIR (removed when it exits); SIGUSR2 runs a full GC. */
export async function startProductNode(port: number, env: Record<string, string>): Promise<{ proc: ChildProcess; output: () => string }> {
  const url = `http://127.0.0.1:${port}`;
  const { dir: dataDir, remove: removeDataDir } = tempDir("classroom-bench-");
  const { proc, output } = spawnTracked([...profileArgs, ...SERVER_NODE_FLAGS, "--expose-gc", "--import", "tsx", "server/index.ts"], {
    ...process.env,
    NODE_ENV: "production",
    SERVE_PAGES: "0",
    HOST: "127.0.0.1",
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    ...env,
  });
  proc.once("exit", removeDataDir);
  await waitHealthy(`${url}/api/health`, proc, output);
  return { proc, output };
}

// --- The cluster: one throwaway redis-server and K product nodes with REDIS_URL

interface ClusterInfo {
  redisUrl: string;
  /** node ids by node index (node 1 = index 0), read from the heartbeat keys as the nodes started */
  nodeIds: string[];
}
export const clusterInfo = new WeakMap<RunningServer, ClusterInfo>();

async function startCluster(k: number): Promise<RunningServer> {
  const redis = await startRedis({ track });
  const nodes: { proc: ChildProcess; output: () => string; url: string }[] = [];
  const nodeIds: string[] = [];
  const stopAll = async () => {
    await Promise.all(nodes.map((nd) => stopProcess(nd.proc, serverGraceMs())));
    await redis.stop();
  };
  const output = () =>
    [
      ...nodes.map((nd, i) => `--- node ${i + 1} (${nd.url})\n${nd.output().slice(-3_000)}`),
      `--- redis\n${redis.output().slice(-1_000)}`,
    ].join("\n");
  try {
    const env = { REDIS_URL: redis.url, SESSION_CREATE_LIMIT: "100000" };
    // Node 1 alone first, so its heartbeat key tells us its id; then the others together.
    for (const batch of [[0], Array.from({ length: k - 1 }, (_, i) => i + 1)]) {
      const before = new Set(await liveNodeIds(redis.url));
      const started = await Promise.all(
        batch.map(async () => {
          const port = await freePort();
          const node = await startProductNode(port, env);
          return { ...node, url: `http://127.0.0.1:${port}` };
        }),
      );
      nodes.push(...started);
      if (batch.length === 1 && batch[0] === 0) {
        const fresh = (await liveNodeIds(redis.url)).filter((id) => !before.has(id));
        if (fresh.length !== 1) throw new Error(`expected node 1's heartbeat key in Redis, found ${fresh.length}`);
        nodeIds.push(fresh[0]);
      } else {
        nodeIds.push(...(await liveNodeIds(redis.url)).filter((id) => !before.has(id) && id !== nodeIds[0]));
      }
    }
    if (new Set(await liveNodeIds(redis.url)).size < k) throw new Error(`fewer than ${k} cluster nodes are heartbeating in Redis`);
  } catch (err) {
    const message = `${(err as Error).message}\n${output()}`;
    await stopAll();
    throw new Error(message, { cause: err });
  }
  const server: RunningServer = {
    kind: "cluster",
    procs: nodes.map((nd) => nd.proc),
    url: nodes[0].url,
    urls: nodes.map((nd) => nd.url),
    cpuPids: [...nodes.map((nd) => nd.proc.pid!), redis.proc.pid!],
    output,
    stop: stopAll,
  };
  clusterInfo.set(server, { redisUrl: redis.url, nodeIds });
  return server;
}
