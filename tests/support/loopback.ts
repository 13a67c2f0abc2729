import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants as fsConstants } from "node:fs";
import net from "node:net";
import path from "node:path";

/**
 * Throwaway services on loopback ports, shared by the integration tests and
 * the benchmark (bench/) so both start Redis the same way. Not in lib/: lib
 * stays free of I/O.
 */

/** A port nothing listens on right now (another process may still take it before the caller binds it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** SIGTERM, then SIGKILL after graceMs if the process is still running (a wedged child must not hang the caller). */
export async function stopProcess(child: ChildProcess, graceMs = 3_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/** redis-server from PATH, or null. */
export function redisServerPath(): string | null {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, "redis-server");
    try {
      accessSync(candidate, fsConstants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

export interface RedisServer {
  proc: ChildProcess;
  url: string;
  /** the last 8,000 characters it wrote, for error messages */
  output(): string;
  stop(): Promise<void>;
}

/**
 * A throwaway redis-server from Debian on a loopback port (a free one unless
 * `port` is given: a restart reuses its predecessor's), with no persistence
 * unless `appendOnlyDir` is given: then an append-only file there, fsynced on
 * every write, so a restart loses nothing Redis acknowledged. Nothing here
 * installs it (`.ci/run` and scripts/test.sh do); without it this says so.
 * `track` sees the process as soon as it is spawned, so a caller that kills
 * its children on exit (the benchmark) also kills one still starting.
 */
export async function startRedis(
  options: { track?: (child: ChildProcess) => void; port?: number; appendOnlyDir?: string } = {},
): Promise<RedisServer> {
  const bin = redisServerPath();
  if (!bin) throw new Error("redis-server is not on PATH. On Debian: apt-get install -y redis-server (CI does this in .ci/run).");
  const port = options.port ?? (await freePort());
  const persistence = options.appendOnlyDir
    ? ["--dir", options.appendOnlyDir, "--appendonly", "yes", "--appendfsync", "always"]
    : ["--appendonly", "no"];
  const proc = spawn(
    bin,
    ["--bind", "127.0.0.1", "--port", String(port), "--save", "", ...persistence, "--daemonize", "no", "--protected-mode", "yes"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  options.track?.(proc);
  let out = "";
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-8_000);
  };
  proc.stdout.on("data", keep);
  proc.stderr.on("data", keep);
  const start = Date.now();
  try {
    while (!/Ready to accept connections/.test(out)) {
      if (proc.exitCode !== null || proc.signalCode !== null)
        throw new Error(`redis-server exited (${proc.exitCode ?? proc.signalCode}):\n${out}`);
      if (Date.now() - start > 10_000) throw new Error(`redis-server did not start within 10 s:\n${out}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } catch (err) {
    // One that never became ready must not outlive the caller's failed set-up.
    await stopProcess(proc);
    throw err;
  }
  return { proc, url: `redis://127.0.0.1:${port}`, output: () => out, stop: () => stopProcess(proc) };
}
