import { describe, expect, it } from "vitest";
import { RATE_LIMITS } from "../../lib/constants";
import { LocalGateway } from "./gateway";
import { RoomRegistry } from "./registry";
import { SqliteSessionStore } from "../store/sqlite";
import { silentRoomOutbox } from "./room";

describe("LocalGateway", () => {
  it("counts new identities per address and session: a script joining its own session does not shut the class's latecomers out", async () => {
    const store = new SqliteSessionStore(":memory:");
    const rooms = new RoomRegistry({ store, outboxFor: () => silentRoomOutbox, idleTimeoutMs: 0 });
    const gateway = new LocalGateway(rooms, store);
    const theirs = await rooms.create("the script's own session");
    const lesson = await rooms.create("the class");
    const school = "203.0.113.7";
    // The script uses up its address's allowance on its own session, until it is refused…
    let refusal: unknown = null;
    for (let i = 0; i < RATE_LIMITS.newParticipants.capacity * 2 && !refusal; i++) {
      const joined = await gateway.join({ code: theirs.code, role: "student", address: school });
      if (!joined.ok) refusal = joined.error;
    }
    expect(refusal).toMatchObject({ code: "RATE_LIMITED" });
    // …and a latecomer behind the same address still gets into the class.
    expect(await gateway.join({ code: lesson.code, role: "student", address: school, nickname: "Ada" })).toMatchObject({ ok: true });
    rooms.disposeAll();
  });
});
