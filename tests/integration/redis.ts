import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { freePort } from "./process";

export interface RedisServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * A throwaway redis-server from Debian on a free loopback port. The test setup
 * installs nothing: `.ci/run` installs the package; without it this says so.
 */
export async function startRedis(): Promise<RedisServer> {
  const which = spawnSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" });
  if (which.status !== 0) {
    throw new Error("redis-server is not installed. On Debian: apt-get install -y redis-server (CI does this in .ci/run).");
  }
  const port = await freePort();
  const proc: ChildProcess = spawn(
    which.stdout.trim(),
    ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no", "--daemonize", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  proc.stdout!.on("data", (d) => (out += d));
  const start = Date.now();
  while (!/Ready to accept connections/.test(out)) {
    if (proc.exitCode !== null) throw new Error(`redis-server exited: ${out}`);
    if (Date.now() - start > 10_000) throw new Error(`redis-server did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once("exit", () => resolve());
        proc.kill("SIGTERM");
      }),
  };
}
