import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../lib/session/types";
import { setLogLevel } from "../logger";
import { SqliteSessionStore } from "./sqlite";
import { SQLITE_SCHEMA_VERSION } from "./sqliteSchema";
import { consoleIdOf } from "./consoles";
import { hashSecret } from "../secrets";

setLogLevel("silent");

/** What schema 4 added: owners, co-teachers, consoles and the kept share key. */
function dropSchema4(db: Database.Database): void {
  db.exec(`DROP TABLE session_consoles;
           DROP TABLE session_coteachers;
           DROP INDEX sessions_owner;
           ALTER TABLE sessions DROP COLUMN owner_account_id;
           ALTER TABLE sessions DROP COLUMN share_key;`);
}

describe("the SQLite schema", () => {
  it("fills the summary counts of a file written before they were kept (schema 2) from each session's log", async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "classroom-schema-")), "sessions.sqlite");
    const store = new SqliteSessionStore(file);
    for (const [i, id] of ["a", "b"].entries()) {
      const created: SessionEvent = { type: "session:created", id, code: `CODE${i}`, title: "t", seq: 1, at: 100 * i };
      await store.createSession({ id, code: `CODE${i}`, title: "t", hostKeyHash: "00", createdAt: 100 * i, endedAt: null }, created);
    }
    const events: SessionEvent[] = [
      { type: "participant:joined", participantId: "p1", nickname: "Ana", seq: 2, at: 10 },
      { type: "participant:joined", participantId: "p2", nickname: "Bo", seq: 3, at: 11 },
      {
        type: "poll:opened",
        poll: { id: "q", kind: "custom", question: "?", options: [], correctOptionId: null },
        closesAt: null,
        seq: 4,
        at: 12,
      },
      { type: "session:ended", seq: 5, at: 13 },
    ];
    for (const event of events) store.append("a", event);
    await store.close();
    const counted = { eventCount: 5, participantCount: 2, pollCount: 1 };

    // The file as a schema-2 server left it: no count columns, and nothing of schema 4.
    const db = new Database(file);
    dropSchema4(db);
    db.exec(`ALTER TABLE sessions DROP COLUMN event_count;
             ALTER TABLE sessions DROP COLUMN participant_count;
             ALTER TABLE sessions DROP COLUMN poll_count;
             PRAGMA user_version = 2;`);
    db.close();

    const upgraded = new SqliteSessionStore(file);
    expect(await upgraded.listSessions()).toMatchObject([
      { id: "b", eventCount: 1, participantCount: 0, pollCount: 0, status: "live" },
      { id: "a", ...counted, status: "ended", endedAt: 13, lastEventAt: 13 },
    ]);
    await upgraded.close();
    const check = new Database(file, { readonly: true });
    expect(check.pragma("user_version", { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
    check.close();
  });
  it("gives each session of a schema-3 file its first console (its host key) and no owner", async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "classroom-schema-")), "sessions.sqlite");
    const store = new SqliteSessionStore(file);
    const created: SessionEvent = { type: "session:created", id: "a", code: "CODEAA", title: "t", seq: 1, at: 100 };
    await store.createSession(
      { id: "a", code: "CODEAA", title: "t", hostKeyHash: hashSecret("laptop"), createdAt: 100, endedAt: null },
      created,
    );
    await store.close();
    const db = new Database(file);
    dropSchema4(db);
    db.pragma("user_version = 3");
    db.close();

    const upgraded = new SqliteSessionStore(file);
    expect(await upgraded.hostKeyHashes("a")).toEqual([hashSecret("laptop")]);
    expect(await upgraded.sessionIdsByHostKeyHash([hashSecret("laptop")])).toEqual(["a"]);
    expect(await upgraded.consoles("a")).toEqual([
      { id: consoleIdOf(hashSecret("laptop")), keyHash: hashSecret("laptop"), accountId: null, createdAt: 100 },
    ]);
    expect(await upgraded.getSession("a")).toMatchObject({ ownerAccountId: null, shareKey: null });
    await upgraded.close();
  });
});
