import { describe, expect, it } from "vitest";
import { MAX_EVENTS_PER_SESSION, MAX_PARTICIPANTS_PER_SESSION, MAX_PROJECTORS_PER_SESSION } from "../constants";
import { admit, type JoinFacts } from "./admission";
import { MAX_IDENTITIES_PER_ADDRESS } from "./limits";
import { applyEvent, initialState } from "./reducer";
import type { SessionEventBody, SessionState } from "./types";

function classroom(...more: SessionEventBody[]): SessionState {
  const s = initialState();
  const events: SessionEventBody[] = [
    { type: "session:created", id: "s1", code: "KUBE42", title: "t" },
    { type: "participant:joined", participantId: "p1", nickname: "Ada" },
    { type: "participant:joined", participantId: "p2", nickname: "Linus" },
    ...more,
  ];
  events.forEach((e, i) => applyEvent(s, { ...e, seq: i + 1, at: 1 }));
  return s;
}

const student = (facts: Partial<JoinFacts> = {}): JoinFacts => ({
  role: "student",
  holdsHostKey: false,
  tokenOf: null,
  admitNew: true,
  projectorsOpen: 0,
  participantsJoined: 2,
  ...facts,
});
const code = (result: ReturnType<typeof admit>) => (result.ok ? result.as : result.error.code);

describe("admit", () => {
  it("bounds the new students one address adds to a session, never a returning one", () => {
    expect(code(admit(classroom(), student({ identitiesFromAddress: MAX_IDENTITIES_PER_ADDRESS - 1 })))).toBe("new");
    const over = admit(classroom(), student({ identitiesFromAddress: MAX_IDENTITIES_PER_ADDRESS }));
    expect(over).toMatchObject({ ok: false, error: { code: "ROOM_FULL", message: expect.stringMatching(/your network/) } });
    expect(code(admit(classroom(), student({ identitiesFromAddress: MAX_IDENTITIES_PER_ADDRESS, tokenOf: "p1" })))).toBe("returning");
  });

  it("lets the teacher in with the host key only", () => {
    expect(code(admit(classroom(), student({ role: "host", holdsHostKey: true })))).toBe("host");
    expect(code(admit(classroom(), student({ role: "host" })))).toBe("NOT_HOST");
  });

  it("keeps a locked room closed to new students and projectors, but not to those who bring a credential", () => {
    const locked = classroom({ type: "room:locked", locked: true });
    expect(code(admit(locked, student()))).toBe("ROOM_LOCKED");
    expect(code(admit(locked, student({ tokenOf: "p1" })))).toBe("returning");
    expect(code(admit(locked, student({ role: "projector" })))).toBe("ROOM_LOCKED");
    expect(code(admit(locked, student({ role: "projector", holdsHostKey: true })))).toBe("projector");
  });

  it("refuses a removed student, even one who brings their token", () => {
    const s = classroom({ type: "participant:removed", participantId: "p2" });
    expect(code(admit(s, student({ tokenOf: "p2" })))).toBe("REMOVED");
    expect(admit(s, student({ tokenOf: "p1" }))).toEqual({ ok: true, as: "returning", participantId: "p1" });
  });

  it("over the address's allowance, answers every guess like an unknown code", () => {
    const s = classroom();
    expect(code(admit(s, student({ admitNew: false })))).toBe("NO_SUCH_SESSION");
    expect(code(admit(s, student({ admitNew: false, tokenOf: "nobody" })))).toBe("NO_SUCH_SESSION");
    expect(code(admit(s, student({ role: "projector", admitNew: false })))).toBe("NO_SUCH_SESSION");
    expect(code(admit(s, student({ role: "host", admitNew: false })))).toBe("NO_SUCH_SESSION");
    expect(code(admit(s, student({ role: "host", admitNew: false, holdsHostKey: true })))).toBe("host");
    // A credential still gets in: a class behind one NAT address is not locked out by one guesser.
    expect(code(admit(s, student({ admitNew: false, tokenOf: "p1" })))).toBe("returning");
    expect(code(admit(s, student({ role: "projector", admitNew: false, holdsHostKey: true })))).toBe("projector");
  });

  it("bounds projector views, the class and the log, for new members only", () => {
    const s = classroom();
    expect(code(admit(s, student({ role: "projector", holdsHostKey: true, projectorsOpen: MAX_PROJECTORS_PER_SESSION })))).toBe(
      "ROOM_FULL",
    );
    expect(code(admit(s, student({ participantsJoined: MAX_PARTICIPANTS_PER_SESSION })))).toBe("ROOM_FULL");
    expect(code(admit(s, student({ participantsJoined: MAX_PARTICIPANTS_PER_SESSION, tokenOf: "p1" })))).toBe("returning");
    s.seq = MAX_EVENTS_PER_SESSION;
    expect(code(admit(s, student()))).toBe("LOG_FULL");
    expect(code(admit(s, student({ tokenOf: "p2" })))).toBe("returning");
  });

  it("admits nobody to an ended session", () => {
    const s = classroom({ type: "session:ended" });
    expect(code(admit(s, student({ role: "host", holdsHostKey: true })))).toBe("SESSION_ENDED");
  });
});
