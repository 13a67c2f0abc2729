import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { SERVER_NODE_FLAGS } from "../../lib/constants";

const ROOT = path.resolve(__dirname, "../..");
/** How long a spawned server may take to answer /api/health (under the 60 s hook timeout of the suites that start several). */
const START_TIMEOUT_MS = 45_000;

export interface ServerProcess {
  proc: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<number | null>;
}

/** The real server process (`node --max-semi-space-size=32 --import tsx server/index.ts`, as `npm run serve`), API and sockets only. */
export async function spawnServer(options: {
  dataDir: string;
  port: number;
  env?: Record<string, string>;
  waitReady?: boolean;
}): Promise<ServerProcess> {
  const proc = spawn(process.execPath, [...SERVER_NODE_FLAGS, "--import", "tsx", "server/index.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      SERVE_PAGES: "0",
      HOST: "127.0.0.1",
      PORT: String(options.port),
      DATA_DIR: options.dataDir,
      LOG_LEVEL: "warn",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  proc.stdout!.on("data", (d) => (out += d));
  proc.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  const url = `http://127.0.0.1:${options.port}`;
  if (options.waitReady !== false) {
    const start = Date.now();
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`server exited: ${out}`);
      try {
        const res = await fetch(`${url}/api/health`);
        if (res.ok) break;
      } catch {
        // not listening yet
      }
      // Generous: three nodes starting at once on a busy 2-core machine took 16-18 s (tsx compiles the server
      // in each). A server that cannot start still fails here, and a crash fails at once (exitCode above).
      if (Date.now() - start > START_TIMEOUT_MS) throw new Error(`server did not start in ${START_TIMEOUT_MS / 1000} s: ${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { proc, url, output: () => out, exited };
}
