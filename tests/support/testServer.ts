import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";
import { createClassroomServer, type ClassroomServer } from "../../server/app";
import { setLogLevel } from "../../server/logger";
import { SqliteSessionStore } from "../../server/store/sqlite";
import type { TestClient } from "./testClient";
import { ADDRESS_BUDGETS, type AddressBudgets } from "../../lib/protocol/budgets";

/** One address's budgets for a test that is the whole school on 127.0.0.1 (thousands of joins in a minute). */
export const SCHOOL_ON_ONE_ADDRESS: AddressBudgets = {
  ...ADDRESS_BUDGETS,
  joins: { capacity: 1_000_000, refillPerSecond: 1_000_000 },
  joinBytes: { capacity: 1024 ** 4, refillPerSecond: 1024 ** 4 },
};

/**
 * The server side of the integration harness: a real classroom server on a
 * free port, with a real SQLite file, one per file or one per test.
 */

setLogLevel("silent");

export interface TestServer {
  server: ClassroomServer;
  url: string;
  dataDir: string;
  store: SqliteSessionStore;
  createSession(title?: string): Promise<{ id: string; code: string; hostKey: string }>;
  close(): Promise<void>;
}

export interface StartServerOptions {
  dataDir?: string;
  idleTimeoutMs?: number;
  adminToken?: string;
  /** PUBLIC_URL: the address students are sent to; with it, only its host (and this machine's) is answered. */
  publicUrl?: string | null;
  /** TRUST_PROXY: take the client address and scheme from X-Forwarded-For / X-Forwarded-Proto. */
  trustProxy?: boolean;
  /** MAX_CONNECTIONS_PER_ADDRESS (the server's default when absent). */
  maxConnectionsPerAddress?: number;
  /** MAX_PENDING_PER_ADDRESS (the server's default when absent). */
  maxPendingPerAddress?: number;
  /** The class size from which tallies go out a slice at a time (the server's PACED_FANOUT_MIN when absent). */
  pacedFanoutMin?: number;
  /** What one address may make the server send again (lib/protocol/budgets.ts when absent). */
  addressBudgets?: AddressBudgets;
}

/** A real server on a free port with a real SQLite file in a temp folder. */
export async function startServer(options: StartServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "classroom-test-"));
  const store = new SqliteSessionStore(path.join(dataDir, "sessions.sqlite"));
  const server = createClassroomServer({
    config: {
      port: 0,
      host: "127.0.0.1",
      publicUrl: options.publicUrl ?? null,
      idleTimeoutMs: options.idleTimeoutMs ?? 0,
      dev: false,
      adminToken: options.adminToken ?? null,
      trustProxy: options.trustProxy,
      maxConnectionsPerAddress: options.maxConnectionsPerAddress,
      maxPendingPerAddress: options.maxPendingPerAddress,
      pacedFanoutMin: options.pacedFanoutMin,
      addressBudgets: options.addressBudgets,
    },
    store,
  });
  const port = await server.listen();
  const url = `http://127.0.0.1:${port}`;
  return {
    server,
    url,
    dataDir,
    store,
    async createSession(title = "Test class") {
      const res = await fetch(`${url}/api/sessions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title }),
      });
      if (res.status !== 201) throw new Error(`create failed: ${res.status} ${await res.text()}`);
      return (await res.json()) as { id: string; code: string; hostKey: string };
    },
    close: () => server.close(),
  };
}

/**
 * A fresh server for each test, and the clients it opened closed after it:
 * `const t = serverPerTest(); ... t.srv.url ... t.track(await connectClient(...))`.
 */
export function serverPerTest(options: Parameters<typeof startServer>[0] = {}) {
  const clients: TestClient[] = [];
  const t = {
    srv: undefined as unknown as TestServer,
    track: (c: TestClient) => (clients.push(c), c),
  };
  beforeEach(async () => {
    t.srv = await startServer(options);
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await t.srv.close();
  });
  return t;
}
