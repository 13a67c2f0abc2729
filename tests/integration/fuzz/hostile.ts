import type { Rng } from "./wire";

// ---------------------------------------------------------------------------
// Hostile material

export function nicknameFor(rng: Rng, n: number): string | undefined {
  return rng.pick<() => string | undefined>([
    () => undefined,
    () => `Kid ${n}`,
    () => `Kid ${n}`,
    () => `Kid ${n}`,
    () => "<script>alert(1)</script>",
    () => "__proto__",
    () => "constructor",
    () => "\u0000\u0007\u001b[31mred\u0000",
    () => "\u202eevil\u202c \u200bname\u200b",
    () => "   ",
    () => "\u0000\u0001\u200b",
    () => "ü".repeat(40),
    () => "x".repeat(128),
    () => "Ana\n\tLee",
  ])();
}

export function textFor(rng: Rng, max: number): string {
  return rng.pick<() => string>([
    () => `Option ${rng.hex(4)}`,
    () => `Option ${rng.hex(4)}`,
    () => "<img src=x onerror=alert(1)>",
    () => "__proto__",
    () => "  spaced\u0000out  ",
    () => "\u200b\u0000", // cleans to empty
    () => "y".repeat(max * 4), // longest accepted, cut to max
    () => "z".repeat(max * 4 + 1), // too long
  ])();
}

function deepObject(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

export function garbagePayload(rng: Rng): unknown {
  return rng.pick<() => unknown>([
    () => null,
    () => undefined,
    () => 0,
    () => -1,
    () => "",
    () => true,
    () => "x".repeat(rng.range(1, 12_000)),
    () => [],
    () => [1, "a", null],
    () => ({}),
    () => ({ stepIndex: "3" }),
    () => ({ stepIndex: 1.5 }),
    () => ({ stepIndex: -1 }),
    () => ({ stepIndex: Number.MAX_SAFE_INTEGER }),
    () => ({ stepIndex: null }),
    () => ({ delta: 0 }),
    () => ({ delta: "1" }),
    () => ({ delta: [1] }),
    () => ({ mode: "__proto__" }),
    () => ({ mode: "Immediate", variant: "constructor" }),
    () => ({ mode: {} }),
    () => ({ kind: "custom", question: "q", options: "ab" }),
    () => ({ kind: "custom", question: "\u200b\u0000", options: ["a", "b"] }),
    () => ({ kind: "custom", question: "q", options: Array(7).fill("o") }),
    () => ({ kind: "custom", question: "q", options: ["a", ""] }),
    () => ({ kind: "custom", question: "q", options: ["a", "b"], correctIndex: 6 }),
    () => ({ kind: "nope" }),
    () => ({ kind: "next-step", durationS: 7 }),
    () => ({ kind: "next-step", durationS: "15" }),
    () => ({ pollId: 5 }),
    () => ({ pollId: "" }),
    () => ({ pollId: "x".repeat(65) }),
    () => ({ pollId: "p", optionId: null }),
    () => ({ pollId: "x".repeat(12_000), optionId: "o1" }),
    () => ({ visible: "yes" }),
    () => ({ panel: "evil" }),
    () => ({ panel: "__proto__" }),
    () => ({ locked: 1 }),
    () => ({ participantId: {} }),
    () => ({ participantId: "x", nickname: 5 }),
    () => JSON.parse('{"__proto__":{"stepIndex":1,"polluted":true},"constructor":{"prototype":{"polluted":true}}}'),
    () => JSON.parse('{"__proto__":{"kind":"next-step"},"kind":"__proto__"}'),
    () => deepObject(200),
  ])();
}
