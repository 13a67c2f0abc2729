import fs from "node:fs";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { ConsolePage, ProjectorPage, StudentPage, createSession, jumpTo, closeContextsAfterEach } from "./fixtures";
import { overlap, grow, scaleOf, settle, type Box } from "./diagramFacts";

/**
 * A student's question on the projector, pinned to an earlier arrow while the
 * class is on a later step (issue 26): the callout sits in free space and
 * never over the live step (its arrow, its label, its note), on the screen
 * at 1920x1080 and at 1280x720. The lifeline heads say each name once and
 * keep their text inside their boxes, on the projector and on the console.
 * A teacher's own Mermaid lesson of eight participants and fifteen messages
 * reads at 20 px or more on a 1920x1080 projector. Screenshots go to
 * SHOTS_DIR (default /tmp/shots).
 */

const SCREENS = [
  { width: 1920, height: 1080 },
  { width: 1280, height: 720 },
] as const;
const SHOTS = process.env.SHOTS_DIR ?? "/tmp/shots";
fs.mkdirSync(SHOTS, { recursive: true });

closeContextsAfterEach();

async function openProjector(browser: Browser, code: string): Promise<ProjectorPage> {
  const projector = await ProjectorPage.open(browser, code);
  // Still arrows: the step's entrance animation must not move what is measured.
  await projector.page.emulateMedia({ reducedMotion: "reduce" });
  return projector;
}

/** A student taps an arrow in the full drawing on her phone and asks about it; the teacher shows it on the projector. */
async function askAndShow(student: StudentPage, teacher: ConsolePage, projector: ProjectorPage, element: string, text: string) {
  const full = student.page.getByTestId("full-diagram");
  if (!(await full.evaluate((el) => (el as HTMLDetailsElement).open))) await student.page.getByText("Show the full diagram").click();
  await student.page.locator(`[data-testid=full-diagram] [data-testid=diagram-element][data-element="${element}"]`).click();
  await expect(student.page.getByTestId("question-target")).toHaveAttribute("data-element", element);
  await student.page.getByTestId("ask-question").click();
  await student.page.getByTestId("question-text").fill(text);
  await student.page.getByTestId("question-submit").click();
  await expect(student.page.getByTestId("question-receipt")).toHaveAttribute("data-kind", "ok");
  await teacher.page.getByTestId("question-item").first().getByTestId("question-show").click();
  const shown = projector.page.getByTestId("projector-question");
  await expect(shown).toHaveAttribute("data-element", element);
  await expect(shown).toHaveAttribute("data-anchored", "true");
}

interface CalloutFacts {
  callout: Box;
  /** The live step's arrow, its label and its note (null when it has none). */
  arrow: Box;
  label: Box;
  note: Box | null;
  /** Every other arrow label drawn. */
  labels: { what: string; box: Box }[];
  /** The rendered size of the callout's smallest text. */
  smallest: number;
}

/** The callout and the live step as the projector shows them, in CSS px of the page. */
async function calloutFacts(page: Page): Promise<CalloutFacts> {
  return page.evaluate(() => {
    const box = (el: Element) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
    };
    const svg = document.querySelector("[data-testid=projector] svg[data-testid=sequence-diagram]")!;
    const shown = svg.querySelector("[data-testid=projector-question]")!;
    const current = svg.querySelector("[data-current]")!;
    const note = current.querySelector("[data-testid=diagram-note]");
    const px = (t: Element) => parseFloat(getComputedStyle(t).fontSize) * (t as SVGGraphicsElement).getScreenCTM()!.a;
    return {
      callout: box(shown.querySelector("rect")!),
      arrow: box(current.querySelector("[data-testid=diagram-arrow]")!),
      label: box(current.querySelector("[data-testid=diagram-label]")!),
      note: note ? box(note) : null,
      labels: [...svg.querySelectorAll("[data-step-label]:not([data-current]) [data-testid=diagram-label]")].map((t) => ({
        what: `step ${t.closest("[data-step-label]")!.getAttribute("data-step-label")} "${t.textContent}"`,
        box: box(t),
      })),
      smallest: Math.min(...[...shown.querySelectorAll("text")].map(px)),
    };
  });
}

/** The checks of issue 26 on one screen; each soft, so one run names every failure. */
async function expectClearOfLiveStep(page: Page, state: string, { freeOfLabels }: { freeOfLabels: boolean }) {
  await settle(page);
  const screen = page.viewportSize()!;
  const s = scaleOf(screen);
  const f = await calloutFacts(page);
  // The arrow's line is a few pixels thick and its head wider: its box is grown by that much.
  expect.soft(overlap(f.callout, grow(f.arrow, 3 * s)), `${state}: the question covers the live arrow`).toBe(false);
  expect.soft(overlap(f.callout, f.label), `${state}: the question covers the live arrow's label`).toBe(false);
  if (f.note) expect.soft(overlap(f.callout, f.note), `${state}: the question covers the live step's note`).toBe(false);
  expect.soft(f.callout.left, `${state}: the question's left edge on the screen`).toBeGreaterThanOrEqual(0);
  expect.soft(f.callout.top, `${state}: the question's top edge on the screen`).toBeGreaterThanOrEqual(0);
  expect.soft(f.callout.right, `${state}: the question's right edge on the screen`).toBeLessThanOrEqual(screen.width);
  expect.soft(f.callout.bottom, `${state}: the question's bottom edge on the screen`).toBeLessThanOrEqual(screen.height);
  // Read from the back row: 20 px on a 1920x1080 projector, the same share of the wall at 1280x720.
  expect.soft(f.smallest, `${state}: the question's smallest text`).toBeGreaterThanOrEqual(20 * s - 0.05);
  if (freeOfLabels) {
    const covered = f.labels.filter((l) => overlap(f.callout, l.box)).map((l) => l.what);
    expect.soft(covered, `${state}: arrow labels under the question`).toEqual([]);
  }
  return f;
}

/** Each lifeline head's lines, and whether they stay inside the head's box. */
async function headFacts(page: Page, root: string) {
  return page.evaluate((sel) => {
    const svg = document.querySelector(`${sel} svg[data-testid=sequence-diagram]`)!;
    return [...svg.querySelectorAll("[data-lifeline]")].map((head) => {
      const frame = head.querySelector("rect")!.getBoundingClientRect();
      const texts = [...head.querySelectorAll("text")];
      return {
        id: head.getAttribute("data-lifeline")!,
        lines: texts.map((t) => t.textContent ?? ""),
        spills: texts
          .filter((t) => {
            const r = t.getBoundingClientRect();
            return r.left < frame.left - 0.5 || r.right > frame.right + 0.5 || r.top < frame.top - 0.5 || r.bottom > frame.bottom + 0.5;
          })
          .map((t) => t.textContent ?? ""),
      };
    });
  }, root);
}

test("a question pinned to an earlier arrow stays off the live step on a 1920x1080 and a 1280x720 projector", async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const session = await createSession(baseURL!, "Callout class");
  const teacher = await ConsolePage.open(browser, session);
  const projector = await openProjector(browser, session.code);
  const student = await StudentPage.join(browser, session.code, "Ana");
  await teacher.expectParticipants(1);

  // Asked about step 8's arrow while the class was there; the class has moved on to step 9 (its note included).
  await jumpTo(teacher, 8);
  await student.expectStep(8);
  await askAndShow(
    student,
    teacher,
    projector,
    "arrow:7",
    "Who creates the PV object here: the CSI driver itself, or the external-provisioner sidecar next to it?",
  );
  for (const step of [9, 12]) {
    await jumpTo(teacher, step);
    await projector.expectStep(step);
    for (const screen of SCREENS) {
      await projector.page.setViewportSize(screen);
      // The built-in lesson's labels are short: there is free space for the question off every label.
      await expectClearOfLiveStep(projector.page, `built-in lesson, step ${step}, ${screen.width}x${screen.height}`, {
        freeOfLabels: true,
      });
      await projector.page.screenshot({ path: `${SHOTS}/callout-builtin-step${step}-${screen.width}.png` });
    }
  }

  // The heads name each lifeline once ("You", not "YOU You") and keep their text inside their boxes.
  for (const screen of SCREENS) {
    await projector.page.setViewportSize(screen);
    await settle(projector.page);
    const heads = await headFacts(projector.page, "[data-testid=projector]");
    const byId = Object.fromEntries(heads.map((h) => [h.id, h.lines]));
    expect.soft(byId.you?.[0], `projector ${screen.width}: the head of You`).toBe("You");
    expect.soft(byId.csi?.[0], `projector ${screen.width}: the head of CSI`).toBe("CSI");
    // A badge that says something else than the name stays: "API" before "Control plane".
    expect.soft(byId.control?.join(" "), `projector ${screen.width}: the head of the control plane`).toMatch(/^API\s+Control plane\b/);
    for (const h of heads) expect.soft(h.spills, `projector ${screen.width}: text outside the head of ${h.id}`).toEqual([]);
  }
  // The console's columns are narrow: the CSI head's subtitle wraps inside its box.
  for (const width of [1920, 1600, 1440, 1024]) {
    await teacher.page.setViewportSize({ width, height: 900 });
    await settle(teacher.page);
    const heads = await headFacts(teacher.page, "body");
    for (const h of heads) expect.soft(h.spills, `console ${width}: text outside the head of ${h.id}`).toEqual([]);
    await teacher.page
      .locator("svg[data-testid=sequence-diagram]")
      .first()
      .screenshot({ path: `${SHOTS}/callout-console-heads-${width}.png` });
  }
});

// Eight participants and fifteen messages, a self-call and three notes among them: a full lesson of a teacher's own
// (components/diagram/layout.test.ts lays out the same one).
const LESSON = `---
title: Signing in with single sign-on
---
sequenceDiagram
  participant B as Browser
  participant E as CDN edge
  participant L as Load balancer
  participant W as Web application
  participant A as Identity provider
  participant U as User directory
  participant C as Session cache
  participant G as Audit log
  B->>E: GET /dashboard without a session cookie
  E->>L: Forward the request, nothing cached for it
  L->>W: Route to a healthy web node
  W-->>B: Redirect to the identity provider with a fresh state value
  B->>A: Show the sign-in page for this application
  A->>U: Look up the user and check the password
  U-->>A: User found, password matches, MFA required
  A->>A: Check the one-time code against the enrolled device
  Note over A: Codes are valid for thirty seconds only
  A-->>B: Redirect back with an authorization code
  B->>W: Callback with the code and the same state value
  W->>A: Exchange the code for tokens over the back channel
  W->>C: Store the session under a new random id
  W->>G: Record who signed in, from where and when
  Note over G: Kept for a year for the security team
  C-->>W: Session stored and replicated
  W-->>B: Set the session cookie and show the dashboard
  Note over B: The cookie is HttpOnly and Secure
`;
const STEPS = 15;

test("a teacher's lesson of eight participants and fifteen messages reads at 20 px on a 1920x1080 projector, its question off the live step", async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto("/lessons/edit");
  // The editor puts its example in once it has loaded; typing before that would be overwritten.
  await expect(page.getByTestId("lesson-source")).not.toHaveValue("");
  await page.getByTestId("lesson-source").fill(LESSON);
  await expect(page.getByTestId("lesson-preview")).toHaveAttribute("data-steps", String(STEPS));
  await expect(page.getByTestId("lesson-error")).toHaveCount(0);
  await page.getByTestId("lesson-save").click();
  await expect(page.getByTestId("lesson-status")).toContainText("Saved");
  await page.goto("/lessons");
  await page.getByTestId("lesson-item").filter({ hasText: "Signing in with single sign-on" }).first().getByTestId("lesson-start").click();
  await expect(page).toHaveURL(/\/host\/[A-Z0-9]{6}/);
  const code = (await page.getByTestId("room-code").innerText()).trim();
  const teacher = new ConsolePage(page, context);
  await expect(teacher.step()).toHaveAttribute("data-total", String(STEPS));
  const projector = await openProjector(browser, code);
  const student = await StudentPage.join(browser, code, "Bo");
  await teacher.expectParticipants(1);

  // Every message drawn: the message text and the participants' names, as rendered on the wall.
  await jumpTo(teacher, STEPS);
  await projector.expectStep(STEPS);
  const figures: string[] = [];
  for (const screen of SCREENS) {
    await projector.page.setViewportSize(screen);
    await settle(projector.page);
    const s = scaleOf(screen);
    const sizes = await projector.page.evaluate(() => {
      const svg = document.querySelector("[data-testid=projector] svg[data-testid=sequence-diagram]")!;
      const px = (t: Element) => ({
        text: (t.textContent ?? "").slice(0, 40),
        px: parseFloat(getComputedStyle(t).fontSize) * (t as SVGGraphicsElement).getScreenCTM()!.a,
      });
      const smallest = (all: { text: string; px: number }[]) => all.reduce((a, b) => (b.px < a.px ? b : a));
      return {
        messages: smallest([...svg.querySelectorAll("[data-testid=diagram-label]")].map(px)),
        names: smallest([...svg.querySelectorAll("[data-lifeline] text")].map(px)),
        rows: svg.querySelectorAll("[data-step-label]").length,
      };
    });
    const state = `teacher's lesson, step ${STEPS}, ${screen.width}x${screen.height}`;
    expect.soft(sizes.rows, `${state}: messages drawn`).toBe(STEPS);
    expect.soft(sizes.messages.px, `${state}: smallest message text "${sizes.messages.text}"`).toBeGreaterThanOrEqual(20 * s - 0.05);
    expect.soft(sizes.names.px, `${state}: smallest lifeline name "${sizes.names.text}"`).toBeGreaterThanOrEqual(20 * s - 0.05);
    figures.push(`${state}: messages ${sizes.messages.px.toFixed(1)} px, names ${sizes.names.px.toFixed(1)} px`);
    await projector.page.screenshot({ path: `${SHOTS}/callout-lesson-step${STEPS}-${screen.width}.png` });
  }

  // A question about step 6's arrow, shown while the class is on step 8 (a self-call with a note) and at the last step.
  await jumpTo(teacher, 6);
  await student.expectStep(6);
  await askAndShow(
    student,
    teacher,
    projector,
    "arrow:5",
    "Why does the identity provider check the password and not the web application?",
  );
  for (const step of [8, STEPS]) {
    await jumpTo(teacher, step);
    await projector.expectStep(step);
    for (const screen of SCREENS) {
      await projector.page.setViewportSize(screen);
      // Eight lifelines leave free space between the short messages' labels: the question covers none of them.
      await expectClearOfLiveStep(projector.page, `teacher's lesson, step ${step}, ${screen.width}x${screen.height}`, {
        freeOfLabels: true,
      });
      await projector.page.screenshot({ path: `${SHOTS}/callout-lesson-question-step${step}-${screen.width}.png` });
    }
  }
  console.log(figures.join("\n"));
});
