import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { flushTogether } from "./flushTogether";

/** An engine.io connection as far as flushTogether looks: transport → ws → a TCP socket that records what it is told. */
function connection() {
  const calls: string[] = [];
  const tcp = { cork: () => calls.push("cork"), uncork: () => calls.push("uncork") };
  return { conn: { transport: { socket: { _socket: tcp } } }, calls };
}

describe("flushTogether", () => {
  it("corks a connection's TCP socket while several queued packets are handed over, and uncorks it right after", () => {
    const engine = new EventEmitter();
    flushTogether(engine);
    const { conn, calls } = connection();
    engine.emit("flush", conn, [{ type: "message" }, { type: "message" }, { type: "message" }]);
    expect(calls).toEqual(["cork"]);
    engine.emit("drain", conn);
    expect(calls).toEqual(["cork", "uncork"]);
  });

  it("leaves a single packet alone (every broadcast)", () => {
    const engine = new EventEmitter();
    flushTogether(engine);
    const { conn, calls } = connection();
    engine.emit("flush", conn, [{ type: "message" }]);
    engine.emit("drain", conn);
    expect(calls).toEqual([]);
  });

  it("never leaves a socket corked when the hand-over ends without its drain", async () => {
    const engine = new EventEmitter();
    flushTogether(engine);
    const first = connection();
    const second = connection();
    engine.emit("flush", first.conn, [{}, {}]);
    // The next hand-over releases the first before it starts.
    engine.emit("flush", second.conn, [{}, {}]);
    expect(first.calls).toEqual(["cork", "uncork"]);
    // And the turn's end releases the second.
    await new Promise((resolve) => process.nextTick(resolve));
    expect(second.calls).toEqual(["cork", "uncork"]);
  });

  it("stops when asked, uncorking what it holds", () => {
    const engine = new EventEmitter();
    const stop = flushTogether(engine);
    const { conn, calls } = connection();
    engine.emit("flush", conn, [{}, {}]);
    stop();
    engine.emit("flush", conn, [{}, {}]);
    expect(calls).toEqual(["cork", "uncork"]);
  });
});
