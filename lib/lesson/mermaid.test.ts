import mermaid from "mermaid";
import { beforeAll, describe, expect, it } from "vitest";
import { WFFC_STEPS } from "./card";
import { customLessonSchema } from "./customSchema";
import { getScenario } from "./scenarios";
import { builtInDiagram, customDiagram } from "./model";
import { diagramAsCustomLesson, parseMermaidLesson, toMermaid, type GetDiagramFromText } from "./mermaid";

// The real Mermaid parser (it runs in Node too): the adapter is tested against what teachers' browsers run.
const getDiagram: GetDiagramFromText = (text) => mermaid.mermaidAPI.getDiagramFromText(text);
beforeAll(() => mermaid.initialize({ startOnLoad: false }));

export const TLS = `---
title: TLS 1.3 handshake
---
sequenceDiagram
  %% summary: How a browser and a server agree on keys.
  participant C as Browser
  participant S as Server
  C->>S: ClientHello
  %% narration: The browser lists its ciphers and a key share.
  %% say: Ask who has seen this in Wireshark.
  S->>C: ServerHello
  %% why: The server picks one cipher and answers with its key share.
  S-->>C: Certificate
  %% wrong: Many think the certificate comes first; the hello always opens.
  Note over C,S: From here on everything is encrypted.
  S-)C: Finished
  C-xS: Finished
  C->C: derive keys
`;

describe("parseMermaidLesson", () => {
  it("points at what the server would refuse or cut, by line and column, before the teacher saves", async () => {
    const longId = "PaymentsServiceEuropeWestRegionPrimaryNode1";
    const cases: { text: string; line: number; column?: number; message: RegExp }[] = [
      {
        text: `sequenceDiagram\n  participant ${longId} as Payments\n  participant B\n  ${longId}->>B: charge\n  B->>${longId}: ok\n`,
        line: 2,
        column: 15,
        message: /Participant id "PaymentsServiceEuropeWes…" is longer than 40 characters/,
      },
      {
        text: "sequenceDiagram\n  participant A\n  participant Pay\u00ADments\n  A->>Pay\u00ADments: charge\n  Pay\u00ADments->>A: ok\n",
        line: 3,
        message: /Participant id "Payments" would change when saved/,
      },
      {
        text: `sequenceDiagram\n  A->>B: hi\n  %% narration: ${"n".repeat(200)}\n  %% narration: ${"n".repeat(200)}\n  B->>A: ok\n`,
        line: 4,
        column: 3,
        message: /"%% narration:" of message 1 is longer than 300 characters \(it has 401\)/,
      },
      {
        text: `sequenceDiagram\n  A->>B: ${"m".repeat(121)}\n  B->>A: ok\n`,
        line: 2,
        column: 10,
        message: /Message 1 is longer than 120 characters/,
      },
      // The server counts UTF-16 units: 100 emoji are 200 of them, and would be cut to 60.
      {
        text: `sequenceDiagram\n  A->>B: ok\n  B->>A: ${"🙂".repeat(100)}\n`,
        line: 3,
        column: 10,
        message: /Message 2 is longer than 120 characters \(it has 200, counting an emoji as two\)/,
      },
      { text: "sequenceDiagram\n  A->>B: ok\n  B->>A: \u200b\u200b\n", line: 3, message: /Message 2 has no visible text/ },
      {
        text: `sequenceDiagram\n  A->>B: short${"\u200b".repeat(480)}\n  B->>A: ok\n`,
        line: 2,
        message: /Message 1 is longer than 120 characters once its invisible characters are counted \(it has 485\)/,
      },
      {
        text: "sequenceDiagram\n  participant Cafe\u0301\n  participant B\n  Cafe\u0301->>B: hi\n  B->>Cafe\u0301: ok\n",
        line: 2,
        message: /Participant id "Café" would change when saved/,
      },
    ];
    for (const c of cases) {
      const result = await parseMermaidLesson(c.text, getDiagram);
      expect(result, c.text.slice(0, 80)).toMatchObject({ ok: false, error: { line: c.line, ...(c.column ? { column: c.column } : {}) } });
      if (!result.ok) expect(result.error.message).toMatch(c.message);
    }
  });

  it("reads participants, messages with their arrows, notes and comment details", async () => {
    const result = await parseMermaidLesson(TLS, getDiagram);
    if (!result.ok) throw new Error(JSON.stringify(result.error));
    const { lesson } = result;
    expect(lesson.title).toBe("TLS 1.3 handshake");
    expect(lesson.summary).toBe("How a browser and a server agree on keys.");
    expect(lesson.lifelines).toEqual([
      { id: "C", name: "Browser" },
      { id: "S", name: "Server" },
    ]);
    expect(lesson.steps.map((s) => [s.from, s.to, s.line, s.head, s.title])).toEqual([
      ["C", "S", "solid", "filled", "ClientHello"],
      ["S", "C", "solid", "filled", "ServerHello"],
      ["S", "C", "dotted", "filled", "Certificate"],
      ["S", "C", "solid", "async", "Finished"],
      ["C", "S", "solid", "cross", "Finished"],
      ["C", "C", "solid", "none", "derive keys"],
    ]);
    expect(lesson.steps[0]).toMatchObject({
      narration: "The browser lists its ciphers and a key share.",
      speakerNotes: "Ask who has seen this in Wireshark.",
    });
    expect(lesson.steps[1].why).toBe("The server picks one cipher and answers with its key share.");
    expect(lesson.steps[2]).toMatchObject({
      wrongNote: "Many think the certificate comes first; the hello always opens.",
      note: "From here on everything is encrypted.",
    });
    expect(customLessonSchema.parse(lesson)).toEqual(lesson);
  });

  it("points a syntax error at the teacher's line and column, past front matter and comments, in words", async () => {
    const broken = TLS.replace("S-->>C: Certificate", "S-->>: Certificate");
    const result = await parseMermaidLesson(broken, getDiagram);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const line = broken.split("\n").findIndex((l) => l.includes("S-->>: Certificate")) + 1;
    // Column 8: where the receiver belongs, between the arrow and the colon.
    expect(result.error).toMatchObject({ line, column: 8 });
    expect(result.error.message).toBe(
      "This message has no receiver: between `-->>` and the colon, write the id of the participant it goes to.",
    );
  });

  it.each([
    ["loop", "  loop every second\n  C->>S: ping\n  end\n"],
    ["alt", "  alt ok\n  C->>S: ping\n  else not ok\n  C->>S: pong\n  end\n"],
    ["opt", "  opt maybe\n  C->>S: ping\n  end\n"],
    ["par", "  par a\n  C->>S: ping\n  and b\n  S->>C: pong\n  end\n"],
    ["rect", "  rect rgb(0,0,0)\n  C->>S: ping\n  end\n"],
    ["activation", "  C->>+S: ping\n  S-->>-C: pong\n"],
    ["activation", "  activate S\n  C->>S: ping\n  deactivate S\n"],
  ])("refuses %s with the construct named and its line", async (construct, block) => {
    const text = `sequenceDiagram\n  participant C\n  participant S\n  C->>S: hello\n${block}`;
    const result = await parseMermaidLesson(text, getDiagram);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message).toContain(`"${construct}" is not supported`);
    expect(result.error.line).toBe(5);
  });

  it("refuses participants created mid-diagram", async () => {
    const text = "sequenceDiagram\n  participant C\n  C->>C: a\n  create participant S\n  C->>S: b\n";
    const result = await parseMermaidLesson(text, getDiagram);
    expect(result).toMatchObject({ ok: false, error: { line: 4 } });
    if (!result.ok) expect(result.error.message).toContain('"create"');
  });

  it("refuses other diagram types and empty text with a line to look at", async () => {
    expect(await parseMermaidLesson("graph TD\n  A-->B\n", getDiagram)).toMatchObject({ ok: false, error: { line: 1, column: 1 } });
    expect(await parseMermaidLesson("   \n", getDiagram)).toMatchObject({ ok: false });
  });

  it("refuses more than 12 participants", async () => {
    const parts = Array.from({ length: 13 }, (_, i) => `  participant P${i}`).join("\n");
    const result = await parseMermaidLesson(`sequenceDiagram\n${parts}\n  P0->>P1: a\n  P1->>P2: b\n`, getDiagram);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toMatch(/at most 12 participants/);
  });
});

// OAuth's redirect is the message on the arrow; "Redirect with the code" names the step everywhere else.
const OAUTH = `sequenceDiagram
  participant U as Browser
  participant A as Auth server
  U->>A: GET /authorize?response_type=code&client_id=s6BhdRkqt3&state=xyz
  %% title: Ask for a code
  %% narration: The app sends the browser to the auth server.
  A-->>U: 302 to redirect_uri?code=SplxlOBeZQQYbYS6WxSbIA, state
  %% title: Redirect with the code
  U->>A: POST /token with the code
`;

describe("%% title: a short title for a long message", () => {
  it("names the step everywhere but on the arrow, which keeps the whole message", async () => {
    const result = await parseMermaidLesson(OAUTH, getDiagram);
    if (!result.ok) throw new Error(JSON.stringify(result.error));
    expect(result.lesson.steps.map((s) => [s.title, s.shortTitle])).toEqual([
      ["GET /authorize?response_type=code&client_id=s6BhdRkqt3&state=xyz", "Ask for a code"],
      ["302 to redirect_uri?code=SplxlOBeZQQYbYS6WxSbIA, state", "Redirect with the code"],
      ["POST /token with the code", undefined],
    ]);
    // The server keeps it.
    expect(customLessonSchema.parse(result.lesson)).toEqual(result.lesson);
    const steps = customDiagram(result.lesson).steps;
    expect(steps[1]).toMatchObject({
      title: "Redirect with the code",
      message: "302 to redirect_uri?code=SplxlOBeZQQYbYS6WxSbIA, state",
      // With no narration of its own, the class reads the whole message under the short title.
      narration: "302 to redirect_uri?code=SplxlOBeZQQYbYS6WxSbIA, state",
    });
    expect(steps[0]).toMatchObject({ title: "Ask for a code", narration: "The app sends the browser to the auth server." });
    // A message without one is named by its text, and has no separate arrow caption.
    expect(steps[2].title).toBe("POST /token with the code");
    expect(steps[2].message).toBeUndefined();
  });

  it("may sit under the message's other comments, never under a note or another statement", async () => {
    const below = OAUTH.replace(
      "  %% title: Redirect with the code\n",
      "  %% why: The code is short-lived.\n  %% title: Redirect with the code\n",
    );
    const ok = await parseMermaidLesson(below, getDiagram);
    expect(ok.ok && ok.lesson.steps[1].shortTitle).toBe("Redirect with the code");

    const underNote = OAUTH.replace(
      "  %% title: Redirect with the code\n",
      "  Note over U,A: The code is in the URL.\n  %% title: Redirect with the code\n",
    );
    expect(await parseMermaidLesson(underNote, getDiagram)).toEqual({
      ok: false,
      error: {
        line: 9,
        column: 3,
        message:
          '"%% title:" must be directly under the message it names: line 8 is between it and message 2 (line 7). Move it up to just under line 7.',
      },
    });
  });

  it.each([
    [
      "an empty title",
      OAUTH.replace("%% title: Redirect with the code", "%% title:   "),
      8,
      '"%% title:" under message 2 is empty: write a short title after the colon, or delete the line to use the whole message.',
    ],
    [
      "a title above every message",
      OAUTH.replace("  participant U", "  %% title: OAuth\n  participant U"),
      2,
      '"%% title:" names the message just above it, and there is no message above this line. For the lesson\'s own title, write `title My lesson` under `sequenceDiagram`.',
    ],
    [
      "two titles for one message",
      OAUTH.replace("%% title: Redirect with the code", "%% title: Redirect with the code\n  %% title: Redirect"),
      9,
      'Message 2 (line 7) already has a "%% title:": keep one.',
    ],
    [
      "a title longer than 60 characters",
      OAUTH.replace("%% title: Redirect with the code", `%% title: ${"r".repeat(61)}`),
      8,
      '"%% title:" of message 2 is longer than 60 characters (it has 61).',
    ],
  ])("refuses %s, at its line", async (_, text, line, message) => {
    expect(await parseMermaidLesson(text, getDiagram)).toEqual({ ok: false, error: { line, column: 3, message } });
  });

  it("round-trips: exported with each title line under its message, and back to the same lesson", async () => {
    const first = await parseMermaidLesson(OAUTH, getDiagram);
    if (!first.ok) throw new Error("parse failed");
    const text = toMermaid(first.lesson);
    expect(text).toContain("  A-->>U: 302 to redirect_uri?code=SplxlOBeZQQYbYS6WxSbIA, state\n  %% title: Redirect with the code\n");
    expect(await parseMermaidLesson(text, getDiagram)).toEqual(first);
    // And through the shared model (how a running lesson is offered as a starting point).
    expect(diagramAsCustomLesson(customDiagram(first.lesson))).toEqual(first.lesson);
  });
});

describe("toMermaid", () => {
  it("round-trips a teacher's lesson", async () => {
    const first = await parseMermaidLesson(TLS, getDiagram);
    if (!first.ok) throw new Error("parse failed");
    const again = await parseMermaidLesson(toMermaid(first.lesson), getDiagram);
    expect(again).toEqual(first);
  });

  it("exports the built-in lesson's 12 steps as Mermaid that parses back to them", async () => {
    const builtIn = diagramAsCustomLesson(builtInDiagram(getScenario("WaitForFirstConsumer", "standard")));
    const text = toMermaid(builtIn);
    const parsed = await parseMermaidLesson(text, getDiagram);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
    expect(parsed.lesson).toEqual(builtIn);
    expect(parsed.lesson.steps.map((s) => s.title)).toEqual(WFFC_STEPS.map((s) => s.title));
    expect(parsed.lesson.lifelines.map((l) => l.name)).toEqual(["You", "Control plane", "Scheduler", "CSI", "Kubelet"]);
    // Watches stay dashed with an open head; the class's diagram draws them as the card does.
    const watch = customDiagram(parsed.lesson).steps[2];
    expect(watch).toMatchObject({ title: "NEW POD", kind: "watch", arrow: { line: "dotted", head: "async" } });
    expect(customLessonSchema.safeParse(parsed.lesson).success).toBe(true);
  });
});
