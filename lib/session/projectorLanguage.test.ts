import { describe, expect, it } from "vitest";
import { LOCALES } from "../../i18n/locales";
import { COMMANDS, projectorLanguageSchema } from "./commands";
import { decide, type DurableCommand } from "./decide";
import { parseStoredEvent } from "./eventSchema";
import { shareableLog } from "./export";
import { applyEvent, initialState, replay } from "./reducer";
import { ReplayTimeline } from "./timeline";
import { ROOM_LANGUAGES, type SessionEventBody, type SessionState } from "./types";
import { toHostSnapshot, toPublicSnapshot } from "./views";
import { CREATED, join, run, stamp } from "../../tests/support/sessionEvents";

/** `projector:language`: the teacher sets the language every projector of the room reads; one event, folded and replayed. */

function decideAndFold(state: SessionState, command: DurableCommand) {
  const decision = decide(state, command, { participantId: null }, { now: 1_000, newId: () => "x", shuffle: (xs) => xs });
  if (decision.ok) for (const body of decision.events) applyEvent(state, { ...body, seq: state.seq + 1, at: 1_000 });
  return decision;
}

const choose = (language: (typeof ROOM_LANGUAGES)[number] | null): DurableCommand => ({
  event: "projector:language",
  payload: { language },
});

describe("projector:language", () => {
  it("offers exactly the shipped interface languages (lib keeps a copy of i18n's list)", () => {
    expect([...ROOM_LANGUAGES]).toEqual([...LOCALES]);
  });

  it("is the teacher's alone: a student's or a projector's socket is refused at the edge (NOT_HOST)", () => {
    expect(COMMANDS["projector:language"].roles).toEqual(["host"]);
    expect(COMMANDS["projector:language"].roles).not.toContain("student");
    expect(COMMANDS["projector:language"].roles).not.toContain("projector");
  });

  it("refuses a language the projector does not have, saying which it has", () => {
    for (const bad of ["xx", "de-DE", "en-XA", "", 42, undefined]) {
      const parsed = projectorLanguageSchema.safeParse({ language: bad });
      expect(parsed.success, String(bad)).toBe(false);
      expect(parsed.error?.issues[0].message).toBe(
        "not a language the projector has: choose one of en, de, fr, es, pt-BR, ja, zh-CN, ar, or null",
      );
    }
    expect(projectorLanguageSchema.parse({ language: "pt-BR" })).toEqual({ language: "pt-BR" });
    expect(projectorLanguageSchema.parse({ language: null })).toEqual({ language: null });
  });

  it("records the choice once, and writes nothing for the language already chosen", () => {
    const s = run([CREATED, join("p1")]);
    expect(s.projectorLanguage).toBeNull();
    expect(decideAndFold(s, choose("de"))).toEqual({
      ok: true,
      events: [{ type: "projector:languageChanged", language: "de" }],
      data: null,
    });
    expect(s.projectorLanguage).toBe("de");
    expect(decideAndFold(s, choose("de"))).toEqual({ ok: true, events: [], data: null });
    expect(decideAndFold(s, choose(null))).toMatchObject({ events: [{ type: "projector:languageChanged", language: null }] });
    expect(s.projectorLanguage).toBeNull();
  });

  it("is refused once the session has ended", () => {
    const s = run([CREATED, { type: "session:ended" }]);
    expect(decideAndFold(s, choose("ja"))).toMatchObject({ ok: false, error: { code: "SESSION_ENDED" } });
  });

  it("reaches the projector (the class's snapshot) and the console (the teacher's)", () => {
    const s = run([CREATED, { type: "projector:languageChanged", language: "ar" }]);
    expect(toPublicSnapshot(s, 0).projectorLanguage).toBe("ar");
    expect(toHostSnapshot(s, { connectedCount: 0, isConnected: () => false }).projectorLanguage).toBe("ar");
  });

  it("replays from a saved log, a shared link's included, and its stored event is read back", () => {
    const bodies: SessionEventBody[] = [
      CREATED,
      { type: "projector:languageChanged", language: "de" },
      { type: "step:changed", stepIndex: 1 },
      { type: "projector:languageChanged", language: "ja" },
    ];
    const log = stamp(bodies);
    expect(replay(log).projectorLanguage).toBe("ja");
    expect(replay(log, 3).projectorLanguage).toBe("de");
    const timeline = new ReplayTimeline(log);
    expect(timeline.stateAtIndex(1).projectorLanguage).toBe("de");
    expect(timeline.stateAtIndex(3).projectorLanguage).toBe("ja");
    expect(replay(shareableLog(log)).projectorLanguage).toBe("ja");
    expect(parseStoredEvent(JSON.stringify(log[3]))).toMatchObject({ type: "projector:languageChanged", language: "ja" });
    expect(() => parseStoredEvent(JSON.stringify({ ...log[3], language: "xx" }))).toThrow(/language/);
  });

  it("starts with no language chosen: each projector reads its own browser's", () => {
    expect(initialState().projectorLanguage).toBeNull();
    expect(run([CREATED]).projectorLanguage).toBeNull();
  });
});
