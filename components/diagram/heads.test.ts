import { describe, expect, it } from "vitest";
import { LIFELINES } from "@/lib/lesson/card";
import { columns, MIN_TYPE_REM, type Font } from "./geometry";
import { headBadge, headLines, layoutHeads } from "./heads";
import type { Measure } from "./measure";

/** Geometry only: text as wide as a typical sans-serif's average letter. */
const measure: Measure = (text, px, weight = 400) => text.length * px * (weight >= 700 ? 0.62 : 0.55);

const fontAt = (u: number, rem = u): Font => ({
  label: 1.05 * u,
  name: u,
  role: 0.875 * u,
  note: 0.875 * u,
  number: 0.875 * u,
  min: MIN_TYPE_REM * rem,
});

const card = (id: string) => LIFELINES.find((l) => l.id === id)!;

describe("headBadge", () => {
  it("leaves out a badge that repeats the name, whatever its case, or that the name contains", () => {
    expect(headBadge(card("you"))).toBeNull();
    expect(headBadge(card("csi"))).toBeNull();
    expect(headBadge(card("scheduler"))).toBeNull();
    expect(headBadge({ badge: "csi", name: "CSI driver" })).toBeNull();
  });
  it("keeps a badge that says something else, and has none to keep when there is none", () => {
    expect(headBadge(card("control"))).toBe("API");
    expect(headBadge(card("node"))).toBe("NODE");
    expect(headBadge({ name: "Browser" })).toBeNull();
    expect(headBadge({ badge: "  ", name: "Browser" })).toBeNull();
  });
});

describe("headLines", () => {
  const font = fontAt(24);
  const text = (lines: ReturnType<typeof headLines>) => lines.map((l) => `${l.badge ?? ""}${l.text}`.trim());

  it('reads "You" and "CSI", not "YOU You" and "CSI CSI", on a projector', () => {
    expect(text(headLines(card("you"), 330, font, measure))[0]).toBe("You");
    expect(text(headLines(card("csi"), 330, font, measure))[0]).toBe("CSI");
    const control = headLines(card("control"), 330, font, measure);
    expect(control[0]).toMatchObject({ badge: "API", text: " Control plane", tone: "name" });
  });

  for (const inner of [330, 160, 106, 70]) {
    it(`keeps every line of every card head inside a ${inner} px wide head`, () => {
      for (const l of LIFELINES) {
        for (const line of headLines(l, inner, fontAt(16), measure)) {
          const width = measure(`${line.badge ?? ""}${line.text}`, line.px, line.tone === "role" ? 400 : 700);
          expect(width, `${l.id}: "${line.text}"`).toBeLessThanOrEqual(inner);
        }
      }
    });
  }

  it("wraps the CSI head's subtitle in a narrow console column, each word whole", () => {
    const roles = headLines(card("csi"), 106, fontAt(16), measure).filter((l) => l.tone === "role");
    expect(roles.length).toBeGreaterThan(1);
    expect(roles.map((l) => l.text).join(" ")).toBe(card("csi").role);
  });

  it("sets a word too wide for its head smaller rather than cut it, never below the floor", () => {
    const u = 24;
    const name = "Provisionersidecar";
    const [shrunk] = headLines({ name }, 270, fontAt(u), measure);
    expect(shrunk).toMatchObject({ text: name, tone: "name" });
    expect(shrunk.px).toBeLessThan(u);
    expect(shrunk.px).toBeGreaterThanOrEqual(MIN_TYPE_REM * u);
    // Far too wide: the floor, then cut between letters.
    const cut = headLines({ name }, 150, fontAt(u), measure);
    expect(cut.length).toBeGreaterThan(1);
    for (const l of cut) expect(l.px).toBe(MIN_TYPE_REM * u);
  });
});

describe("layoutHeads", () => {
  it("keeps each head's lines inside its box, on a console with five narrow columns", () => {
    const cols = columns(LIFELINES, 640, 16);
    const { heads } = layoutHeads(LIFELINES, cols, fontAt(16), 16, measure);
    for (const h of heads) {
      for (const line of h.lines) {
        const w = measure(`${line.badge ?? ""}${line.text}`, line.px, line.tone === "role" ? 400 : 700);
        expect(h.x - w / 2, `${h.lifeline.id}: "${line.text}"`).toBeGreaterThanOrEqual(h.box.x);
        expect(h.x + w / 2).toBeLessThanOrEqual(h.box.x + h.box.width);
        expect(line.y - line.px).toBeGreaterThanOrEqual(h.box.y);
        expect(line.y + line.px * 0.25).toBeLessThanOrEqual(h.box.y + h.box.height);
      }
    }
  });
});
