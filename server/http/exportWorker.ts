import { parentPort } from "node:worker_threads";
import Database from "better-sqlite3";
import { renderExport, type ExportKind, type SessionEvent } from "../../lib/session";
import { parseStoredEvent } from "../../lib/session/eventSchema";
import { errorMessage } from "../../lib/errors";

/**
 * Runs in a worker thread (server/http/exports.ts): reads a session's log and
 * renders an export, so a big log never blocks the event loop that carries
 * every class's steps and votes. SQLite logs are read here, on a read-only
 * connection of our own (WAL lets it read while the server writes).
 */
export interface ExportJob {
  id: number;
  sessionId: string;
  kind: ExportKind;
  access: "admin" | "host" | "viewer";
  /** Where the log is: a SQLite file this thread reads, or the events themselves (Redis). */
  source: { sqliteFile: string } | { events: SessionEvent[] };
}

export type ExportReply = { id: number; ok: true; body: string } | { id: number; ok: false; message: string };

const databases = new Map<string, Database.Database>();

function readLog(file: string, sessionId: string): SessionEvent[] {
  let db = databases.get(file);
  if (!db) {
    db = new Database(file, { readonly: true, fileMustExist: true });
    databases.set(file, db);
  }
  const rows = db.prepare<[string], { body: string }>("SELECT body FROM events WHERE session_id = ? ORDER BY seq").all(sessionId);
  // The server wrote each row from a SessionEvent; it is read back as one.
  return rows.map((r): SessionEvent => parseStoredEvent(r.body));
}

parentPort?.on("message", (job: ExportJob) => {
  let reply: ExportReply;
  try {
    const events = "sqliteFile" in job.source ? readLog(job.source.sqliteFile, job.sessionId) : job.source.events;
    reply = { id: job.id, ok: true, body: renderExport(events, job.kind, job.access) };
  } catch (err) {
    reply = { id: job.id, ok: false, message: errorMessage(err) };
  }
  parentPort!.postMessage(reply);
});
