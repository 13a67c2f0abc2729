import { describe, expect, it } from "vitest";
import type { LessonDiagram, LessonStep } from "@/lib/lesson/model";
import { layoutDiagram, MIN_TYPE_REM } from "./layout";
import type { Measure } from "./measure";

/** Geometry only: text as wide as a typical sans-serif's average letter. */
const measure: Measure = (text, px, weight = 400) => text.length * px * (weight >= 700 ? 0.62 : 0.55);

/** A teacher's lesson of eight participants and fifteen messages, three with notes (as e2e/projectorCallout.spec.ts writes it). */
function teachersLesson(): Pick<LessonDiagram, "lifelines" | "steps"> {
  const names = [
    "Browser",
    "CDN edge",
    "Load balancer",
    "Web application",
    "Identity provider",
    "User directory",
    "Session cache",
    "Audit log",
  ];
  const messages: [string, string, string, string?][] = [
    ["B", "E", "GET /dashboard without a session cookie"],
    ["E", "L", "Forward the request, nothing cached for it"],
    ["L", "W", "Route to a healthy web node"],
    ["W", "B", "Redirect to the identity provider with a fresh state value"],
    ["B", "A", "Show the sign-in page for this application"],
    ["A", "U", "Look up the user and check the password"],
    ["U", "A", "User found, password matches, MFA required"],
    ["A", "A", "Check the one-time code against the enrolled device", "Codes are valid for thirty seconds only"],
    ["A", "B", "Redirect back with an authorization code"],
    ["B", "W", "Callback with the code and the same state value"],
    ["W", "A", "Exchange the code for tokens over the back channel"],
    ["W", "C", "Store the session under a new random id"],
    ["W", "G", "Record who signed in, from where and when", "Kept for a year for the security team"],
    ["C", "W", "Session stored and replicated"],
    ["W", "B", "Set the session cookie and show the dashboard", "The cookie is HttpOnly and Secure"],
  ];
  const ids = "BELWAUCG";
  return {
    lifelines: names.map((name, i) => ({ id: ids[i], name })),
    steps: messages.map(([from, to, title, note], i): LessonStep => ({
      label: i + 1,
      title,
      from,
      to,
      kind: "request",
      narration: title,
      speakerNotes: "",
      ...(note ? { note } : {}),
    })),
  };
}

describe("a teacher's lesson on a 1920x1080 projector", () => {
  // The diagram's box under the projector's header: 1904 px wide, about 716 px tall, the page's rem 24 px.
  for (const height of [830, 716]) {
    it(`sets every message and name at 20 px or more in a ${height} px tall box, and fits it`, () => {
      const lesson = teachersLesson();
      const rem = 24;
      for (const stepIndex of [0, 8, 14]) {
        const layout = layoutDiagram(lesson, { width: 1904, height, rem }, stepIndex, measure);
        expect(layout.height, `step ${stepIndex + 1}: the drawing fits its box (it is not scaled down)`).toBeLessThanOrEqual(height + 0.01);
        expect(layout.font.label).toBeGreaterThanOrEqual(20);
        for (const row of layout.rows) expect(row.label.px).toBeGreaterThanOrEqual(20);
        for (const h of layout.heads) for (const line of h.lines) expect(line.px, `${h.lifeline.name}`).toBeGreaterThanOrEqual(20);
      }
    });
  }

  it("never sets type under the floor, however full the box", () => {
    const layout = layoutDiagram(teachersLesson(), { width: 1264, height: 300, rem: 16 }, 14, measure);
    const floor = MIN_TYPE_REM * 16;
    for (const px of Object.values(layout.font)) expect(px).toBeGreaterThanOrEqual(floor);
    for (const h of layout.heads) for (const line of h.lines) expect(line.px).toBeGreaterThanOrEqual(floor);
  });
});
