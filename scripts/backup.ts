// A consistent copy of the session database while classes run: `npm run backup -- <file>`.
// README "Operations" says how to restore it.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { loadConfig } from "../server/config";
import { errorMessage } from "../lib/errors";

/**
 * SQLite's online backup API (better-sqlite3's `db.backup()`), never a file
 * copy: in WAL mode the newest commits live in `sessions.sqlite-wal`, and a
 * copy of the main file alone can miss them or catch a page half-written.
 * The backup reads one consistent snapshot through its own connection; in WAL
 * mode a reader does not block the server's writers, so classes carry on.
 * The copy is written beside the target, checked, switched to a single-file
 * journal, then renamed into place: a failed run never leaves a half-written
 * file under the target's name.
 */
async function main(args: string[]): Promise<number> {
  const target = args.find((a) => !a.startsWith("-"));
  if (!target || args.includes("--help") || args.includes("-h")) {
    process.stderr.write(
      "usage: npm run backup -- <file>\n" +
        "Copies DATA_DIR/sessions.sqlite (DATA_DIR defaults to ./data) to <file> while the server runs.\n",
    );
    return 2;
  }
  const config = loadConfig();
  if (config.redisUrl) {
    process.stderr.write(
      "REDIS_URL is set: this deployment keeps its sessions in Redis, not in SQLite. Back up Redis with its own tools " +
        "(its append-only file, or BGSAVE and a copy of dump.rdb; see deploy/README.md).\n",
    );
    return 2;
  }
  if (!fs.existsSync(config.dbFile)) {
    process.stderr.write(`There is no session database at ${config.dbFile}. Set DATA_DIR to the server's data folder.\n`);
    return 1;
  }
  const dest = path.resolve(target);
  if (dest === config.dbFile || dest.startsWith(`${config.dbFile}-`)) {
    process.stderr.write(`Refusing to write the backup over the live database (${config.dbFile}). Choose another file.\n`);
    return 2;
  }
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  const partial = `${dest}.partial-${process.pid}`;
  const started = Date.now();
  const source = new Database(config.dbFile, { fileMustExist: true });
  try {
    // After the first step, copy everything left in one step: a step reads one snapshot, so a vote written
    // between steps (which would restart the copy) cannot keep a busy class's backup from finishing.
    await source.backup(partial, { progress: ({ remainingPages }) => Math.max(1, remainingPages) });
    const copy = new Database(partial, { fileMustExist: true });
    try {
      // One self-contained file: no -wal beside it to forget when it is moved.
      copy.pragma("journal_mode = DELETE");
      const check = copy.pragma("integrity_check", { simple: true });
      if (check !== "ok") throw new Error(`the copy failed its integrity check: ${String(check)}`);
      const counts = copy
        .prepare<[], { sessions: number; live: number; events: number }>(
          `SELECT (SELECT COUNT(*) FROM sessions) AS sessions,
                  (SELECT COUNT(*) FROM sessions WHERE ended_at IS NULL) AS live,
                  (SELECT COUNT(*) FROM events) AS events`,
        )
        .get()!;
      copy.close();
      fs.renameSync(partial, dest);
      const mib = (fs.statSync(dest).size / (1024 * 1024)).toFixed(1);
      process.stdout.write(
        `backed up ${config.dbFile} to ${dest}: ${counts.sessions} sessions (${counts.live} live), ${counts.events} events, ` +
          `${mib} MiB, in ${Date.now() - started} ms\n`,
      );
      return 0;
    } finally {
      if (copy.open) copy.close();
    }
  } catch (err) {
    for (const file of [partial, `${partial}-wal`, `${partial}-shm`, `${partial}-journal`]) fs.rmSync(file, { force: true });
    process.stderr.write(`backup failed: ${errorMessage(err)}\n`);
    return 1;
  } finally {
    source.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`backup failed: ${errorMessage(err)}\n`);
    process.exit(1);
  },
);
