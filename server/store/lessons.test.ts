import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { hashSecret, newId } from "../secrets";
import { LESSON_VERSIONS_KEPT, MAX_LESSON_VERSIONS_HELD, SqliteLessonStore } from "./lessons";
import { T0, handshake, revised, storesUnderTest } from "../../tests/integration/storeContractStores";

/**
 * What a lesson store holds when edits keep coming and lessons are deleted:
 * the bounds of issue 28, on the SQLite file and on Redis alike. The rest of
 * the store's contract is tests/integration/storeContractLessons.test.ts.
 */
const stores = storesUnderTest();

describe.each(stores)("the lesson store's bounds on $name", ({ open }) => {
  it("keeps the newest versions and those a session ran, up to a bound, whatever the number of edits", async () => {
    const { lessons } = await open();
    const id = newId();
    await lessons.create({ id, ownerKeyHash: hashSecret("key"), at: T0 }, handshake, "v1");
    // Sessions ran versions 2 and 3; then the teacher keeps editing.
    for (let v = 2; v <= 3; v++) {
      await lessons.addVersion(id, revised, `v${v}`, T0 + v);
      await lessons.markUsed(id, v);
    }
    const edits = 3 * LESSON_VERSIONS_KEPT;
    for (let v = 4; v <= edits; v++) await lessons.addVersion(id, revised, `v${v}`, T0 + v);
    const held = [];
    for (let v = 1; v <= edits; v++) if (await lessons.version(id, v)) held.push(v);
    const newest = Array.from({ length: LESSON_VERSIONS_KEPT }, (_, i) => edits - LESSON_VERSIONS_KEPT + 1 + i);
    expect(held).toEqual([2, 3, ...newest]);
    expect(await lessons.version(id)).toMatchObject({ version: edits, source: `v${edits}` });
    expect(await lessons.meta(id)).toMatchObject({ latestVersion: edits });
  });

  it("holds at most MAX_LESSON_VERSIONS_HELD versions even when sessions ran every one: the oldest go first", async () => {
    const { lessons } = await open();
    const id = newId();
    await lessons.create({ id, ownerKeyHash: hashSecret("key"), at: T0 }, handshake, "v1");
    await lessons.markUsed(id, 1);
    const last = MAX_LESSON_VERSIONS_HELD + 5;
    for (let v = 2; v <= last; v++) {
      await lessons.addVersion(id, revised, `v${v}`, T0 + v);
      await lessons.markUsed(id, v);
    }
    const held = [];
    for (let v = 1; v <= last; v++) if (await lessons.version(id, v)) held.push(v);
    expect(held).toEqual(Array.from({ length: MAX_LESSON_VERSIONS_HELD }, (_, i) => last - MAX_LESSON_VERSIONS_HELD + 1 + i));
  });

  it("removes a lesson with every version, freeing its place under the server's cap", async () => {
    const { lessons } = await open();
    const [gone, kept] = [newId(), newId()];
    await lessons.create({ id: gone, ownerKeyHash: hashSecret("key"), at: T0 }, handshake, "v1");
    await lessons.create({ id: kept, ownerKeyHash: hashSecret("key"), at: T0 }, handshake, "v1");
    await lessons.addVersion(gone, revised, "v2", T0 + 1);
    await lessons.markUsed(gone, 1);
    expect(await lessons.count()).toBe(2);
    await lessons.remove(gone);
    expect(await lessons.count()).toBe(1);
    expect(await lessons.meta(gone)).toBeNull();
    expect(await lessons.version(gone, 1)).toBeNull();
    expect(await lessons.version(gone, 2)).toBeNull();
    expect((await lessons.list(null)).map((l) => l.id)).toEqual([kept]);
    // Removing what is not there is nothing.
    await lessons.remove(gone);
    await lessons.remove(newId());
    expect(await lessons.count()).toBe(1);
  });
});

describe("the SQLite lesson store on a file from before the bounds", () => {
  it("counts every earlier version as run by a session, and drops lessons an earlier server hid when deleting them", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lessons-legacy-"));
    const file = path.join(dir, "sessions.sqlite");
    const db = new Database(file);
    db.exec(`
      CREATE TABLE lessons (id TEXT PRIMARY KEY, owner_key_hash TEXT NOT NULL, latest_version INTEGER NOT NULL,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, deleted_at INTEGER);
      CREATE TABLE lesson_versions (lesson_id TEXT NOT NULL REFERENCES lessons (id), version INTEGER NOT NULL,
        body TEXT NOT NULL, source TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (lesson_id, version));
    `);
    const [old, hidden] = [newId(), newId()];
    const insertLesson = db.prepare(`INSERT INTO lessons VALUES (?, ?, ?, ?, ?, ?)`);
    const insertVersion = db.prepare(`INSERT INTO lesson_versions VALUES (?, ?, ?, ?, ?)`);
    insertLesson.run(old, hashSecret("key"), LESSON_VERSIONS_KEPT + 2, T0, T0, null);
    for (let v = 1; v <= LESSON_VERSIONS_KEPT + 2; v++) insertVersion.run(old, v, JSON.stringify(handshake), `v${v}`, T0);
    insertLesson.run(hidden, hashSecret("key"), 1, T0, T0, T0 + 1);
    insertVersion.run(hidden, 1, JSON.stringify(handshake), "v1", T0);
    db.close();

    const lessons = new SqliteLessonStore(file);
    try {
      expect(await lessons.count()).toBe(1);
      expect(await lessons.meta(hidden)).toBeNull();
      // Which of the old versions sessions ran was never recorded: an edit prunes none of them.
      await lessons.addVersion(old, revised, "new", T0 + 2);
      for (let v = 1; v <= LESSON_VERSIONS_KEPT + 3; v++) expect(await lessons.version(old, v), `version ${v}`).not.toBeNull();
    } finally {
      await lessons.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
