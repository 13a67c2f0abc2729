import { PROTOCOL_VERSION } from "../../lib/protocol";
import { describe, expect, it } from "vitest";
import { FRAME_LIMITS, MAX_PROJECTORS_PER_SESSION, MAX_SELF_RENAMES } from "../../lib/constants";
import type { HostSnapshot } from "../../lib/session";
import { connectClient, openRaw, rawJoin, rawJoinCode, serverPerTest } from "./harness";

/**
 * What an independent review of the running server found, each attacked again
 * from outside: a student who reconnects to rename themselves in a loop, a
 * script opening projector views by the hundred, handshakes that are not even
 * objects, invisible marks that hide a look-alike name, and an address whose
 * connections keep being closed for abuse.
 */
const t = serverPerTest();
const track = t.track;

const hostView = (c: { host(): HostSnapshot }) => c.host();

describe("found by the outside review", () => {
  it("a student reconnecting with a new name in a loop renames themselves only a few times", async () => {
    const { id, code, hostKey } = await t.srv.createSession();
    const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
    const first = track(await connectClient(t.srv.url, { role: "student", code, nickname: "name0" }));
    const token = first.welcome!.token;
    first.close();
    for (let i = 1; i <= 20; i++) {
      const again = await connectClient(t.srv.url, { role: "student", code, token, nickname: `name${i}` });
      again.close();
    }
    // The log holds at most MAX_SELF_RENAMES renames for that student, whatever the loop did.
    const log = (await (await fetch(`${t.srv.url}/api/sessions/${id}/events`, { headers: { "X-Host-Key": hostKey } })).json()) as {
      events: { type: string }[];
    };
    expect(log.events.filter((e) => e.type === "participant:renamed")).toHaveLength(MAX_SELF_RENAMES);
    await host.waitFor((c) => c.students()[0]?.nickname === `name${MAX_SELF_RENAMES}`);
    // The teacher can still rename them.
    const pid = first.welcome!.participantId!;
    expect(await host.emit("participant:rename", { participantId: pid, nickname: "Grace" })).toEqual({ ok: true, data: null });
  });

  it("a session admits a bounded number of projector views, and the teacher sees them", async () => {
    const { code, hostKey } = await t.srv.createSession();
    const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
    for (let i = 0; i < MAX_PROJECTORS_PER_SESSION; i++) track(await connectClient(t.srv.url, { role: "projector", code }));
    const refused = await rawJoin(t.srv.url, { role: "projector", code });
    refused.raw.close();
    expect(refused.code).toBe("ROOM_FULL");
    await host.waitFor((c) => hostView(c).projectorCount === MAX_PROJECTORS_PER_SESSION);
  });

  it("a handshake whose auth is not an object gets a named refusal, not a silent close", async () => {
    for (const auth of ["[1,2]", '"x"', "42"]) {
      const raw = await openRaw(t.srv.url);
      raw.send(`40${auth}`);
      const reply = await raw.waitForFrame((f) => f.startsWith("44") || f.startsWith("40"), 3_000);
      expect(reply.startsWith("44"), `auth ${auth}: ${reply}`).toBe(true);
      // A named refusal the page can show (an old or broken client), never silence.
      expect(["BAD_REQUEST", "CLIENT_TOO_OLD"]).toContain((JSON.parse(reply.slice(2)) as { data: { code: string } }).data.code);
      raw.close();
    }
  });

  it("invisible marks do not hide a look-alike name from the teacher", async () => {
    const { code, hostKey } = await t.srv.createSession();
    const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
    for (const nickname of ["Ada", "Ada\uFE0F", "Ada\u034F", "Ada\u180B", "Ada\u{E0100}", "Ada\u17B4"]) {
      track(await connectClient(t.srv.url, { role: "student", code, nickname }));
    }
    await host.waitFor((c) => c.students().length === 6);
    const people = host.students();
    // The marks are gone, and every "Ada" is marked as looking like the others.
    expect(people.map((p) => p.nickname)).toEqual(Array(6).fill("Ada"));
    expect(people.every((p) => p.lookalike)).toBe(true);
    expect(new Set(people.map((p) => p.number)).size).toBe(6);
  });

  it("an address whose connections keep being closed for abuse lets in only returning students and the teacher; others are not touched", async () => {
    const { code, hostKey } = await t.srv.createSession();
    // A class behind one NAT address: Ada joined before one of her classmates' scripts started.
    const school = "127.0.0.61";
    const ada = await rawJoin(t.srv.url, { role: "student", code, nickname: "Ada" }, { localAddress: school });
    expect(ada.ok).toBe(true);
    ada.raw.close();
    // Binary frames are a protocol violation: each closes its connection.
    for (let i = 0; i < FRAME_LIMITS.abusiveClosesPerAddress.capacity + 2; i++) {
      const raw = await openRaw(t.srv.url, { localAddress: school });
      raw.send(Buffer.from([1, 2, 3]));
      await raw.closed;
    }
    // Nobody new gets in from that address for a while, with a code that says why.
    expect(await rawJoinCode(t.srv.url, { role: "student", code, nickname: "New" }, { localAddress: school })).toBe("RATE_LIMITED");
    expect(await rawJoinCode(t.srv.url, { role: "projector", code }, { localAddress: school })).toBe("RATE_LIMITED");
    // But Ada's phone reconnecting with her token, and the teacher's console with the key, are let in.
    expect(await rawJoinCode(t.srv.url, { role: "student", code, token: ada.welcome!.token }, { localAddress: school })).toBeNull();
    expect(await rawJoinCode(t.srv.url, { role: "host", code, hostKey }, { localAddress: school })).toBeNull();
    // A made-up token is no way in either.
    expect(await rawJoinCode(t.srv.url, { role: "student", code, token: "x".repeat(43) }, { localAddress: school })).not.toBeNull();
    // Another address (another school) is answered as usual, and so are the abuser's plain pages.
    expect(await rawJoinCode(t.srv.url, { role: "student", code }, { localAddress: "127.0.0.62" })).toBeNull();
    const page = await fetch(`${t.srv.url}/api/health`);
    expect(page.status).toBe(200);
  });
});

describe("found by the second outside review", () => {
  it("150 phones behind one address joining one live code at the same moment all get in, and a guesser still does not gain", async () => {
    const { code, hostKey } = await t.srv.createSession();
    const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
    // Every handshake is sent before any is answered: 150 sockets open, then 150 CONNECTs in one go.
    const raws = await Promise.all(Array.from({ length: 150 }, () => openRaw(t.srv.url, { localAddress: "127.0.0.77" })));
    raws.forEach((raw, i) => raw.send(`40${JSON.stringify({ v: PROTOCOL_VERSION, role: "student", code, nickname: `Phone ${i + 1}` })}`));
    const joins = await Promise.all(
      raws.map(async (raw) => {
        const reply = await raw.waitForFrame((f) => f.startsWith("40") || f.startsWith("44"));
        raw.close();
        return { code: reply.startsWith("44") ? ((JSON.parse(reply.slice(2)) as { data?: { code: string } }).data?.code ?? "?") : null };
      }),
    );
    const refused = joins.filter((j) => j.code !== null).map((j) => j.code);
    expect(refused).toEqual([]);
    await host.waitFor((c) => c.students().length === 150, 10_000);
    // The same address guessing 150 different dead codes at once still gets about the allowance's worth of answers.
    const guesses = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        rawJoin(t.srv.url, { role: "student", code: `ZZ${String(i).padStart(4, "2")}`.slice(0, 6) }, { localAddress: "127.0.0.78" }),
      ),
    );
    for (const g of guesses) g.raw.close();
    expect(guesses.filter((g) => g.code === "NO_SUCH_SESSION").length).toBeLessThanOrEqual(61);
  });
});
