import { afterEach, expect } from "vitest";
import { httpRequest, rawJoin, serverPerTest, type RawJoin, type RawOptions, type RawSocket } from "../harness";

/**
 * The promises of docs/security.md, attacked the way a student with a laptop
 * and a script would: only the running server's published doors (the REST
 * API, the socket protocol spoken by hand, raw HTTP with any headers), never
 * its internals. Every test asserts what the attacker can observe, and that
 * the class next to them is unaffected. (issue 10)
 *
 * This is the attacker's kit; the attacks are in outsiderSecrets.test.ts (the
 * answer before the reveal), outsiderGuessing.test.ts (room codes),
 * outsiderCrossSite.test.ts (other websites, DNS rebinding, proxies) and
 * outsiderGaps.test.ts. The frame budget, connection caps and the noisy
 * neighbour are in outsiderNet*.test.ts.
 */

export const ADMIN = "outsider-admin-token-0123456789";

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
/** A well-formed room code that is not one of `taken`. */
export function wrongCode(taken: string[] = []): string {
  for (;;) {
    const code = Array.from({ length: 6 }, () => ALPHABET[Math.floor(Math.random() * ALPHABET.length)]).join("");
    if (!taken.includes(code)) return code;
  }
}

export const errorCode = (body: string) => (JSON.parse(body) as { error?: { code?: string } }).error?.code;

/**
 * A fresh server for each test of the file (with ADMIN as its admin token),
 * and the attacker's tools aimed at it. Called once, at the top of a test file.
 */
export function attackedServer() {
  const t = serverPerTest({ adminToken: ADMIN });
  const track = t.track;

  /** Raw sockets opened by a test, closed after it (before the server closes: hooks unwind in reverse). */
  const raws: RawSocket[] = [];
  const cleanUpAfterEach = () =>
    afterEach(() => {
      for (const r of raws.splice(0)) r.close();
    });
  cleanUpAfterEach();

  async function join(auth: Record<string, unknown>, options: RawOptions = {}, url = t.srv.url): Promise<RawJoin> {
    const joined = await rawJoin(url, auth, options);
    raws.push(joined.raw);
    return joined;
  }

  /** One CONNECT on a fresh WebSocket; returns its refusal frame (or the join) and drops the connection. */
  async function attempt(auth: Record<string, unknown>, options: RawOptions = {}, url = t.srv.url): Promise<RawJoin> {
    const joined = await rawJoin(url, auth, options);
    joined.raw.close();
    return joined;
  }

  /** Spends the address's whole failed-join allowance (60 at once) on wrong codes; returns what each guess was told. */
  async function exhaustAllowance(taken: string[], url = t.srv.url, options: RawOptions = {}): Promise<(string | null)[]> {
    const codes: (string | null)[] = [];
    for (let i = 0; i < 60; i++) codes.push((await attempt({ role: "student", code: wrongCode(taken) }, options, url)).code);
    return codes;
  }

  /**
   * Over the allowance a token comes back every second. Waits for it and spends
   * it on one more wrong guess, so that for the next second the address has
   * none: what follows is then deterministic, not a race with the refill.
   */
  async function spendTheRefill(taken: string[], url = t.srv.url): Promise<void> {
    const start = Date.now();
    for (;;) {
      const code = (await attempt({ role: "student", code: wrongCode(taken) }, {}, url)).code;
      if (code === "NO_SUCH_SESSION") return;
      expect(code).toBe("RATE_LIMITED");
      if (Date.now() - start > 5_000) throw new Error("the allowance never refilled");
      await sleep(25);
    }
  }

  const api = (p: string, headers: Record<string, string> = {}) => httpRequest(t.srv.url, p, { headers });

  return { t, track, raws, cleanUpAfterEach, join, attempt, exhaustAllowance, spendTheRefill, api };
}
