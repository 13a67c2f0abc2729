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

  it("points a syntax error at the teacher's line and column, past front matter and comments", async () => {
    const broken = TLS.replace("S-->>C: Certificate", "S-->>: Certificate");
    const result = await parseMermaidLesson(broken, getDiagram);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const line = broken.split("\n").findIndex((l) => l.includes("S-->>: Certificate")) + 1;
    expect(result.error.line).toBe(line);
    expect(result.error.column).toBeGreaterThanOrEqual(1);
    expect(result.error.message).toMatch(/parse/i);
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
