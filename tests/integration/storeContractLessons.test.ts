import { describe, expect, it } from "vitest";
import { customLessonSchema } from "../../lib/lesson/customSchema";
import type { CustomLesson } from "../../lib/lesson/model";
import { hashSecret, newId } from "../../server/secrets";
import { StoreError } from "../../server/store/types";
import { T0, handshake, revised, storesUnderTest } from "./storeContractStores";

/**
 * The lesson store's contract (server/store/lessons.ts LessonStore), on the
 * SQLite file and on Redis alike. The HTTP rules around it (who may read or
 * edit a lesson, what the schema admits) are tests/integration/lessons.test.ts.
 */
const stores = storesUnderTest();

/** What a store gives back: the lesson as the schema that admitted it reads it. */
const stored = (lesson: CustomLesson) => customLessonSchema.parse(lesson);

describe.each(stores)("the lesson store on $name", ({ open }) => {
  it("saves a lesson with its first version and reads it back, source verbatim", async () => {
    const { lessons } = await open();
    const id = newId();
    await lessons.create({ id, ownerKeyHash: hashSecret("key"), at: T0 }, handshake, "sequenceDiagram\n  C->>S: SYN\n");
    expect(await lessons.meta(id)).toEqual({
      id,
      ownerKeyHash: hashSecret("key"),
      ownerAccountId: null,
      latestVersion: 1,
      createdAt: T0,
      updatedAt: T0,
      deletedAt: null,
    });
    const first = { id, version: 1, lesson: stored(handshake), source: "sequenceDiagram\n  C->>S: SYN\n", createdAt: T0 };
    expect(await lessons.version(id)).toEqual(first);
    expect(await lessons.version(id, 1)).toEqual(first);
    // What does not exist is nothing, not an error.
    expect(await lessons.meta(newId())).toBeNull();
    expect(await lessons.version(newId())).toBeNull();
    expect(await lessons.version(id, 2)).toBeNull();
  });

  it("numbers each edit as the next version, keeps every version, and reads the latest by default", async () => {
    const { lessons } = await open();
    const id = newId();
    await lessons.create({ id, ownerKeyHash: hashSecret("key"), at: T0 }, handshake, "v1");
    expect(await lessons.addVersion(id, revised, "v2", T0 + 1_000)).toBe(2);
    expect(await lessons.addVersion(id, handshake, "v3", T0 + 2_000)).toBe(3);
    expect(await lessons.meta(id)).toMatchObject({ latestVersion: 3, createdAt: T0, updatedAt: T0 + 2_000 });
    expect(await lessons.version(id)).toMatchObject({ version: 3, source: "v3", createdAt: T0 + 2_000 });
    expect(await lessons.version(id, 2)).toEqual({ id, version: 2, lesson: stored(revised), source: "v2", createdAt: T0 + 1_000 });
    expect(await lessons.version(id, 1)).toMatchObject({ source: "v1", lesson: stored(handshake) });
    await expect(lessons.addVersion(newId(), revised, "x", T0)).rejects.toThrow(StoreError);
  });

  it("lists the lessons of the owners asked for, or all of them, last edited first, each as its latest version", async () => {
    const { lessons } = await open();
    const [mine, alsoMine, theirs] = [newId(), newId(), newId()];
    await lessons.create({ id: mine, ownerKeyHash: hashSecret("laptop"), at: T0 }, handshake, "x");
    await lessons.create({ id: alsoMine, ownerKeyHash: hashSecret("phone"), at: T0 + 1_000 }, handshake, "x");
    await lessons.create({ id: theirs, ownerKeyHash: hashSecret("theirs"), at: T0 + 2_000 }, handshake, "x");
    await lessons.addVersion(mine, revised, "y", T0 + 3_000);

    const listed = await lessons.list([hashSecret("laptop"), hashSecret("phone")]);
    expect(listed).toEqual([
      { id: mine, version: 2, title: "Handshake, revised", lifelineCount: 2, stepCount: 4, createdAt: T0, updatedAt: T0 + 3_000 },
      { id: alsoMine, version: 1, title: "Handshake", lifelineCount: 2, stepCount: 3, createdAt: T0 + 1_000, updatedAt: T0 + 1_000 },
    ]);
    expect((await lessons.list(null)).map((l) => l.id)).toEqual([mine, theirs, alsoMine]);
    expect(await lessons.list([hashSecret("nobody")])).toEqual([]);
    expect(await lessons.list([])).toEqual([]);
  });

  it("hides a deleted lesson from lists and edits, but keeps its versions for the sessions that ran them", async () => {
    const { lessons } = await open();
    const [gone, kept] = [newId(), newId()];
    await lessons.create({ id: gone, ownerKeyHash: hashSecret("key"), at: T0 }, handshake, "v1");
    await lessons.create({ id: kept, ownerKeyHash: hashSecret("key"), at: T0 }, handshake, "v1");
    await lessons.addVersion(gone, revised, "v2", T0 + 1_000);
    await lessons.markDeleted(gone, T0 + 5_000);
    // A second delete does not move the time it was deleted.
    await lessons.markDeleted(gone, T0 + 9_000);
    expect(await lessons.meta(gone)).toMatchObject({ deletedAt: T0 + 5_000, latestVersion: 2 });
    expect((await lessons.list([hashSecret("key")])).map((l) => l.id)).toEqual([kept]);
    expect((await lessons.list(null)).map((l) => l.id)).toEqual([kept]);
    expect(await lessons.version(gone, 1)).toMatchObject({ source: "v1" });
    expect(await lessons.version(gone)).toMatchObject({ version: 2, source: "v2" });
    await expect(lessons.addVersion(gone, handshake, "v3", T0 + 6_000)).rejects.toThrow(StoreError);
    expect(await lessons.meta(gone)).toMatchObject({ latestVersion: 2 });
  });

  it("counts every lesson it holds, deleted ones included (the per-server cap)", async () => {
    const { lessons } = await open();
    expect(await lessons.count()).toBe(0);
    const ids = [newId(), newId(), newId()];
    for (const id of ids) await lessons.create({ id, ownerKeyHash: hashSecret("key"), at: T0 }, handshake, "x");
    await lessons.addVersion(ids[0], revised, "y", T0 + 1);
    await lessons.markDeleted(ids[1], T0 + 2);
    expect(await lessons.count()).toBe(3);
  });
});
