import { describe, expect, it } from "vitest";
import { ConnectionGuard } from "./connectionGuard";

/** An engine.io connection as the guard sees it behind a trusted proxy: its upgrade request, and close. */
function conn(forwardedFor: string) {
  const c = {
    request: { socket: { remoteAddress: "10.0.0.1" }, headers: { "x-forwarded-for": forwardedFor } },
    closed: false,
    onClose: [] as (() => void)[],
    once(_event: "close", fn: () => void) {
      this.onClose.push(fn);
    },
    close() {
      this.closed = true;
    },
  };
  return c;
}

describe("ConnectionGuard behind a trusted proxy", () => {
  it("closes the oldest connection that has not spoken, never one whose CONNECT has arrived", () => {
    const guard = new ConnectionGuard({ maxOpenPerAddress: 10, maxPendingPerAddress: 2 }, true);
    const open = (c: ReturnType<typeof conn>) => {
      // @ts-expect-error the guard reads only the request's socket and headers
      expect(guard.admitUpgrade(c.request)).toBe(true);
      // @ts-expect-error the same: a partial engine.io connection
      guard.opened(c);
    };
    const student = conn("203.0.113.7");
    open(student);
    // The student's CONNECT is in: its join is being looked up.
    guard.connecting(student);
    const silent = [conn("203.0.113.7"), conn("203.0.113.7")];
    silent.forEach(open);
    expect(guard.countsFor("203.0.113.7")).toEqual({ open: 3, pending: 2 });
    // A script keeps opening silent connections: each closes the oldest silent one, never the student.
    for (let i = 0; i < 5; i++) {
      const next = conn("203.0.113.7");
      open(next);
      silent.push(next);
    }
    expect(student.closed).toBe(false);
    expect(silent.filter((c) => c.closed)).toHaveLength(5);
    expect(guard.countsFor("203.0.113.7")).toEqual({ open: 3, pending: 2 });
    // Another address is counted apart.
    expect(guard.countsFor("203.0.113.8")).toEqual({ open: 0, pending: 0 });
  });
});
