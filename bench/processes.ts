import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** The repository root: child processes run there so `tsx` and relative paths resolve as in `npm run`. */
export const ROOT = path.resolve(__dirname, "..");

// Child processes: every one is tracked and killed on any exit path.

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();

export function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

/** A temporary directory removed by remove() or, if the run dies first, on exit. */
export function tempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  return {
    dir,
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
      tempDirs.delete(dir);
    },
  };
}

export function killAll(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

// Registered when this module loads: whatever spawns a child imports track() from here, so the handlers are in place before
// the first child exists and no exit path (Ctrl-C, a throw nobody caught) leaves servers or workers running.
process.on("exit", killAll);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping the benchmark`);
    killAll();
    process.exit(130);
  });
}
process.on("uncaughtException", (err) => {
  console.error(err);
  killAll();
  process.exit(1);
});
process.on("unhandledRejection", (err) => {
  console.error(err);
  killAll();
  process.exit(1);
});

/** `node <args>` from the repository root, tracked, keeping the tail of its output for error messages. */
export function spawnTracked(args: string[], env: NodeJS.ProcessEnv): { proc: ChildProcess; output: () => string } {
  const proc = track(spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] }));
  let out = "";
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-16_000);
  };
  proc.stdout!.on("data", keep);
  proc.stderr!.on("data", keep);
  return { proc, output: () => out };
}
