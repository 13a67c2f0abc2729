import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { MAX_QUEUED_EXPORTS } from "../../lib/constants";
import type { ExportKind } from "../../lib/session";
import type { ExportJob, ExportReply } from "./exportWorker";
import { log } from "../logger";
import type { SessionStore } from "../store/types";

export class ExportsBusyError extends Error {}

/**
 * Saved-session reads (the replay's log, JSON and CSV downloads) run on one
 * worker thread, one at a time: eight readers of a big log once pushed another
 * room's step fan-out from 2 ms to a second. Identical reads that arrive
 * while one is running share its result, so a refresh storm costs one render;
 * past MAX_QUEUED_EXPORTS waiting reads, callers are told to come back.
 */
export class ExportRunner {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (body: string) => void; reject: (err: Error) => void }>();
  private readonly shared = new Map<string, Promise<string>>();
  private queue: Promise<unknown> = Promise.resolve();
  private queued = 0;

  constructor(private readonly store: SessionStore) {}

  render(sessionId: string, kind: ExportKind, access: ExportJob["access"]): Promise<string> {
    const key = `${sessionId}:${kind}:${access}`;
    const existing = this.shared.get(key);
    if (existing) return existing;
    if (this.queued >= MAX_QUEUED_EXPORTS) return Promise.reject(new ExportsBusyError("busy"));
    this.queued += 1;
    const run = this.queue.then(() => this.runOne(sessionId, kind, access));
    this.queue = run.catch(() => undefined);
    const result = run.finally(() => {
      this.queued -= 1;
      this.shared.delete(key);
    });
    this.shared.set(key, result);
    return result;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    worker?.removeAllListeners("exit");
    await worker?.terminate();
  }

  private async runOne(sessionId: string, kind: ExportKind, access: ExportJob["access"]): Promise<string> {
    const sqliteFile = this.store.sqliteFile?.();
    // Redis: the events travel to the worker; SQLite: the worker reads the file itself.
    const source: ExportJob["source"] = sqliteFile ? { sqliteFile } : { events: await this.store.loadEvents(sessionId) };
    // Everything acknowledged must be in the export: let queued writes land first.
    if (sqliteFile) await this.store.flush(sessionId).catch(() => undefined);
    const id = this.nextId++;
    const worker = this.ensureWorker();
    return new Promise<string>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, sessionId, kind, access, source } satisfies ExportJob);
    });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const file = fileURLToPath(new URL("./exportWorker.ts", import.meta.url));
    // The worker loads TypeScript through tsx's require hook (a plain `execArgv: ["--import", "tsx"]` does not
    // reach worker entry points on Node 20).
    const worker = new Worker(`require("tsx/cjs"); require(${JSON.stringify(file)});`, { eval: true });
    worker.unref();
    worker.on("message", (reply: ExportReply) => {
      const pending = this.waiting.get(reply.id);
      if (!pending) return;
      this.waiting.delete(reply.id);
      if (reply.ok) pending.resolve(reply.body);
      else pending.reject(new Error(reply.message));
    });
    const fail = (err: Error) => {
      log.error("the export worker stopped", { error: err.message });
      if (this.worker === worker) this.worker = null;
      for (const pending of this.waiting.values()) pending.reject(err);
      this.waiting.clear();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => code !== 0 && fail(new Error(`exit code ${code}`)));
    this.worker = worker;
    return worker;
  }
}
