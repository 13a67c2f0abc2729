import fs from "node:fs";
import { expect, test, type Browser } from "@playwright/test";
import { ConsolePage, ProjectorPage, StudentPage, createSession, jumpTo, pollOptions, closeContextsAfterEach } from "./fixtures";
import { renderedText } from "./layout";
import { drawingFacts, describeFigures, expectLegible, gap, grow, overlap, scaleOf, settle } from "./diagramFacts";

/**
 * A teacher's own Mermaid lesson on the projector, measured on the real page
 * the way the built-in lesson is: the drawing's share of the screen's width,
 * the smallest text as rendered (SVG text times its drawing's scale), no
 * scrolling, no label over another or over a step number, the revealed poll
 * whole, and a shown question beside its element without covering the
 * current arrow. Six participants with long names and messages of up to a
 * hundred characters: what the small scaled diagram could not draw legibly.
 * Screenshots go to SHOTS_DIR (default /tmp/shots) to be looked at.
 */

const LESSON = `---
title: How a classroom vote reaches the projector
---
sequenceDiagram
  participant P as Student's phone (mobile browser)
  participant L as Load balancer with sticky sessions
  participant S as Classroom server (Node.js, Socket.IO)
  participant D as SQLite event log (write-ahead)
  participant T as Teacher's console laptop
  participant J as Projector in the lecture hall
  P->>L: WebSocket upgrade carrying the room code and the student's saved identity
  L->>S: Forward the upgrade to the node that already owns this room
  S->>S: Check the protocol version, the room code and the rate limits before accepting
  Note over S: A malformed payload is refused here and never reaches the rules
  S-->>P: Welcome with the whole room snapshot, so a late joiner sees the current step
  T->>S: Open the poll "what happens next?" at the current step of the lesson
  %% why: Only the teacher's socket carries the host key, so only it may open polls.
  S->>D: Append the poll-opened event with its sequence number before broadcasting it
  %% wrong: Nothing is written until the poll closes, so a crash would lose the whole poll.
  S-->>J: Poll opened: the question and how many have voted, never the distribution
  %% wrong: The projector shows the live distribution, which sways the students who have not voted yet.
  P->>S: Vote for the option the student believes comes next, acknowledged once stored
  %% wrong: The phone counts its own vote and tells the others.
  S-->>T: Coalesced tally every 250 ms, so a thousand phones never become a million messages
  T->>S: Reveal the answer and the explanation of every option to the whole class
  S-->>J: Revealed: every option with its share of the votes and why it is right or wrong
`;
const STEPS = 11;

const SCREENS = [
  { width: 1920, height: 1080 },
  { width: 1280, height: 720 },
] as const;
const SHOTS = process.env.SHOTS_DIR ?? "/tmp/shots";
fs.mkdirSync(SHOTS, { recursive: true });

closeContextsAfterEach();

/** The teacher writes the lesson, saves it and starts a session from it (as e2e/lessons.spec.ts does). */
async function startTeachersLesson(browser: Browser): Promise<{ teacher: ConsolePage; code: string }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto("/lessons/edit");
  // The editor puts its example in once it has loaded; typing before that would be overwritten.
  await expect(page.getByTestId("lesson-source")).not.toHaveValue("");
  await page.getByTestId("lesson-source").fill(LESSON);
  await expect(page.getByTestId("lesson-preview")).toHaveAttribute("data-steps", String(STEPS));
  await expect(page.getByTestId("lesson-error")).toHaveCount(0);
  await page.screenshot({ path: `${SHOTS}/editor-preview-1440.png`, fullPage: true });
  await page.getByTestId("lesson-save").click();
  await expect(page.getByTestId("lesson-status")).toContainText("Saved");
  await page.goto("/lessons");
  await page
    .getByTestId("lesson-item")
    .filter({ hasText: "How a classroom vote reaches the projector" })
    .first()
    .getByTestId("lesson-start")
    .click();
  await expect(page).toHaveURL(/\/host\/[A-Z0-9]{6}/);
  const code = (await page.getByTestId("room-code").innerText()).trim();
  const teacher = new ConsolePage(page, context);
  await expect(teacher.step()).toHaveAttribute("data-total", String(STEPS));
  return { teacher, code };
}

async function openProjector(browser: Browser, code: string): Promise<ProjectorPage> {
  const projector = await ProjectorPage.open(browser, code);
  // Still arrows: the step's entrance animation must not move what is measured.
  await projector.page.emulateMedia({ reducedMotion: "reduce" });
  return projector;
}

async function openFullDiagram(student: StudentPage) {
  const full = student.page.getByTestId("full-diagram");
  if (!(await full.evaluate((el) => (el as HTMLDetailsElement).open))) await student.page.getByText("Show the full diagram").click();
  await expect(full).toHaveAttribute("open", "");
}

/** The phone's view, the list and the full drawing opened, as one tall screenshot. */
async function phoneShot(student: StudentPage, name: string) {
  await openFullDiagram(student);
  await settle(student.page);
  await student.page.screenshot({ path: `${SHOTS}/${name}-phone-360.png`, fullPage: true });
  // The full drawing as the phone shows it (it scrolls sideways, opened on the current step).
  await student.page.getByRole("region", { name: /Full sequence diagram/ }).screenshot({ path: `${SHOTS}/${name}-phone-full-diagram.png` });
}

test("a teacher's Mermaid lesson on the projector meets the built-in lesson's numbers", async ({ browser }) => {
  test.setTimeout(240_000);
  const { teacher, code } = await startTeachersLesson(browser);
  const projector = await openProjector(browser, code);
  const student = await StudentPage.join(browser, code, "Ana");
  await teacher.expectParticipants(1);
  const figures: string[] = [];

  // Every message drawn: the longest labels, all the participants.
  await jumpTo(teacher, STEPS);
  await projector.expectStep(STEPS);
  for (const screen of SCREENS) {
    await projector.page.setViewportSize(screen);
    const f = await expectLegible(
      projector.page,
      `teacher's lesson, last step, ${screen.width}x${screen.height}`,
      STEPS,
      screen.width === 1920 ? 0.85 : 0.85,
    );
    figures.push(`teacher's lesson, last step, ${describeFigures(screen, f)}`);
    await projector.page.screenshot({ path: `${SHOTS}/lesson-projector-${screen.width}.png` });
  }
  await settle(teacher.page);
  await teacher.page.screenshot({ path: `${SHOTS}/lesson-console-1440.png`, fullPage: true });
  await phoneShot(student, "lesson");

  // The revealed poll: every option and its explanation on the screen, nothing cut off; the drawing beside it still legible.
  await jumpTo(teacher, 5);
  await teacher.page.getByTestId("poll-open").click();
  await expect(pollOptions(student)).toHaveCount(4);
  await pollOptions(student).first().click();
  await teacher.page.getByTestId("poll-close").click();
  await teacher.page.getByTestId("poll-reveal").click();
  await expect(projector.page.getByTestId("poll-tally")).toHaveAttribute("data-total", "1");
  for (const screen of SCREENS) {
    await projector.page.setViewportSize(screen);
    const state = `revealed poll, ${screen.width}x${screen.height}`;
    const f = await expectLegible(projector.page, state, 5, null);
    figures.push(`teacher's lesson, ${describeFigures(screen, f)}`);
    const poll = await projector.page.getByTestId("projector-poll").evaluate((section) => {
      const vw = document.documentElement.clientWidth;
      const vh = document.documentElement.clientHeight;
      const frame = section.getBoundingClientRect();
      const inside = (el: Element) => {
        const r = el.getBoundingClientRect();
        return (
          r.width > 0 &&
          r.height > 0 &&
          r.left >= -1 &&
          r.top >= -1 &&
          r.right <= vw + 1 &&
          r.bottom <= vh + 1 &&
          r.bottom <= frame.bottom + 1
        );
      };
      const options = [...section.querySelectorAll("li[data-option-id]")].map((li) => {
        const note = li.querySelector("[data-testid=poll-option-note]");
        return {
          text: (li.textContent ?? "").slice(0, 50),
          visible: inside(li),
          note: note ? { text: note.textContent ?? "", visible: inside(note) && (note as HTMLElement).checkVisibility() } : null,
        };
      });
      const sizes = [...section.querySelectorAll("*")]
        .filter((el) => el.childNodes.length && [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent?.trim()))
        .map((el) => parseFloat(getComputedStyle(el).fontSize));
      return { options, clipped: section.scrollHeight > section.clientHeight + 1, smallest: Math.min(...sizes) };
    });
    expect.soft(poll.options, `${state}: the options`).toHaveLength(4);
    for (const o of poll.options) {
      expect.soft(o.visible, `${state}: option "${o.text}" on the screen`).toBe(true);
      expect.soft(o.note?.text ?? "", `${state}: option "${o.text}" has its explanation`).not.toBe("");
      expect.soft(o.note?.visible, `${state}: the explanation of "${o.text}" on the screen`).toBe(true);
    }
    expect.soft(poll.clipped, `${state}: the poll is cut off below`).toBe(false);
    expect.soft(poll.smallest, `${state}: the poll's smallest text`).toBeGreaterThanOrEqual(18 * scaleOf(screen) - 0.05);
    figures.push(
      `  poll: ${poll.options.filter((o) => o.visible && o.note?.visible).length} of 4 options with explanations in view, smallest text ${poll.smallest.toFixed(1)} px`,
    );
    await projector.page.screenshot({ path: `${SHOTS}/lesson-projector-poll-${screen.width}.png` });
  }

  // A student asks about the current arrow; the teacher shows it: beside the arrow, in free space, never over it.
  await jumpTo(teacher, 7);
  await student.expectStep(7);
  await openFullDiagram(student);
  await student.page.locator('[data-testid=full-diagram] [data-testid=diagram-element][data-element="arrow:6"]').click();
  await expect(student.page.getByTestId("question-target")).toHaveAttribute("data-element", "arrow:6");
  await student.page.getByTestId("ask-question").click();
  await student.page
    .getByTestId("question-text")
    .fill("Why is the event written before anyone is told? Would it not be faster the other way round?");
  await student.page.getByTestId("question-submit").click();
  await expect(student.page.getByTestId("question-receipt")).toHaveAttribute("data-kind", "ok");
  const item = teacher.page.getByTestId("question-item");
  await item.getByTestId("question-show").click();
  const shown = projector.page.getByTestId("projector-question");
  await expect(shown).toBeVisible();
  await expect(shown).toHaveAttribute("data-element", "arrow:6");
  await expect(shown).toHaveAttribute("data-anchored", "true");

  for (const atLast of [false, true]) {
    if (atLast) {
      // At the last step the question's arrow is no longer current; the callout still stays off the current one.
      await jumpTo(teacher, STEPS);
      await projector.expectStep(STEPS);
    }
    for (const screen of SCREENS) {
      await projector.page.setViewportSize(screen);
      const s = scaleOf(screen);
      const state = `question shown at step ${atLast ? STEPS : 7}, ${screen.width}x${screen.height}`;
      const f = await expectLegible(projector.page, state, atLast ? STEPS : 7, 0.85);
      figures.push(`teacher's lesson, question at step ${atLast ? STEPS : 7}, ${describeFigures(screen, f)}`);
      const facts = await drawingFacts(projector.page);
      const callout = await shown
        .locator("rect")
        .first()
        .evaluate((el) => {
          const r = el.getBoundingClientRect();
          return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
        });
      // The element is the arrow with its caption (its label): "beside" is measured to the nearer of the two.
      const element = await projector.page.locator('[data-testid=projector] [data-step-label="7"]').evaluate((row) => {
        const label = [...row.querySelectorAll("text")].find((t) => t.textContent?.trim() !== row.getAttribute("data-step-label"));
        const arrow = row.querySelector("[data-testid=diagram-arrow]") ?? row.querySelector("path[marker-end]");
        return [arrow, label]
          .filter((el): el is Element => !!el)
          .map((el) => {
            const r = el.getBoundingClientRect();
            return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
          });
      });
      expect.soft(callout.left, `${state}: inside the screen`).toBeGreaterThanOrEqual(0);
      expect.soft(callout.top).toBeGreaterThanOrEqual(0);
      expect.soft(callout.right).toBeLessThanOrEqual(screen.width);
      expect.soft(callout.bottom).toBeLessThanOrEqual(screen.height);
      // The arrow's line is a few pixels thick: its box is grown by the stroke.
      expect.soft(facts.currentArrow, `${state}: the current arrow`).not.toBeNull();
      expect.soft(overlap(callout, grow(facts.currentArrow!, 3 * s)), `${state}: the question covers the current arrow`).toBe(false);
      expect.soft(overlap(callout, facts.currentLabel!), `${state}: the question covers the current arrow's label`).toBe(false);
      const distance = Math.min(...element.map((b) => gap(callout, grow(b, 3 * s))));
      // Free space first (issue 26): a callout away from its arrow is joined to it by a line.
      const joined = await projector.page.locator("[data-testid=projector-question][data-anchored=true] line").count();
      expect
        .soft(
          distance <= 96 * s || joined === 1,
          `${state}: the question is ${distance.toFixed(0)} px from its arrow, and joined to it: ${joined}`,
        )
        .toBe(true);
      if (!atLast) {
        const covered = [...facts.labels, ...facts.numbers].filter((l) => overlap(callout, l.box)).map((l) => l.what);
        expect.soft(covered, `${state}: the question is in free space`).toEqual([]);
      }
      const sizes = (await renderedText(projector.page, "[data-testid=projector-question]")).map((t) => t.px);
      expect.soft(Math.min(...sizes), `${state}: the question's smallest text`).toBeGreaterThanOrEqual(20 * s - 0.05);
      figures.push(
        `  question: ${distance.toFixed(0)} px from its arrow, smallest text ${Math.min(...sizes).toFixed(1)} px, clear of the current arrow: ${!overlap(callout, grow(facts.currentArrow!, 3 * s))}`,
      );
      await projector.page.screenshot({ path: `${SHOTS}/lesson-projector-question-step${atLast ? STEPS : 7}-${screen.width}.png` });
    }
  }
  console.log(figures.join("\n"));
});

test("the built-in lesson on the projector, the console and a phone: the same numbers", async ({ browser, baseURL }) => {
  test.setTimeout(120_000);
  const session = await createSession(baseURL!, "Built-in figures");
  const teacher = await ConsolePage.open(browser, session);
  await teacher.page.setViewportSize({ width: 1440, height: 900 });
  const projector = await openProjector(browser, session.code);
  const student = await StudentPage.join(browser, session.code, "Bo");
  await jumpTo(teacher, 12);
  await projector.expectStep(12);
  const figures: string[] = [];
  for (const screen of SCREENS) {
    await projector.page.setViewportSize(screen);
    const f = await expectLegible(projector.page, `built-in lesson, step 12, ${screen.width}x${screen.height}`, 12, 0.85);
    figures.push(`built-in lesson, step 12, ${describeFigures(screen, f)}`);
    await projector.page.screenshot({ path: `${SHOTS}/builtin-projector-${screen.width}.png` });
  }
  await settle(teacher.page);
  await teacher.page.screenshot({ path: `${SHOTS}/builtin-console-1440.png`, fullPage: true });
  // The console on a phone: the drawing scales down whole rather than wrapping names letter by letter.
  await teacher.page.setViewportSize({ width: 360, height: 740 });
  await settle(teacher.page);
  await teacher.page.locator("[data-testid=sequence-diagram]").screenshot({ path: `${SHOTS}/builtin-console-360-diagram.png` });
  await teacher.page.setViewportSize({ width: 1440, height: 900 });
  await student.expectStep(12);
  await phoneShot(student, "builtin");
  // A question about a lifeline, shown: beside the head, off the current arrow.
  await student.page.locator('[data-testid=full-diagram] [data-testid=diagram-element][data-element="lifeline:scheduler"]').click();
  await student.page.getByTestId("ask-question").click();
  await student.page.getByTestId("question-text").fill("Does the scheduler ever talk to the CSI driver directly?");
  await student.page.getByTestId("question-submit").click();
  await expect(student.page.getByTestId("question-receipt")).toHaveAttribute("data-kind", "ok");
  await teacher.page.getByTestId("question-item").getByTestId("question-show").click();
  const shown = projector.page.getByTestId("projector-question");
  await expect(shown).toHaveAttribute("data-anchored", "true");
  for (const screen of SCREENS) {
    await projector.page.setViewportSize(screen);
    await settle(projector.page);
    const facts = await drawingFacts(projector.page);
    const callout = await shown
      .locator("rect")
      .first()
      .evaluate((el) => {
        const r = el.getBoundingClientRect();
        return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
      });
    expect
      .soft(overlap(callout, grow(facts.currentArrow!, 3)), `built-in ${screen.width}: the question covers the current arrow`)
      .toBe(false);
    await projector.page.screenshot({ path: `${SHOTS}/builtin-projector-question-${screen.width}.png` });
  }
  // The replay draws the same diagram.
  await teacher.page.getByTestId("end-session").click();
  await teacher.page.getByTestId("end-session-confirm").click();
  await teacher.page.goto(`/replay/${session.id}`);
  await teacher.page.getByTestId("replay-timeline").focus();
  await teacher.page.keyboard.press("End");
  await expect(teacher.page.getByTestId("step-indicator")).toHaveAttribute("data-step", "12");
  await expect(teacher.page.locator("[data-testid=sequence-diagram] [data-current]")).toHaveCount(1);
  await settle(teacher.page);
  await teacher.page.screenshot({ path: `${SHOTS}/builtin-replay-1440.png`, fullPage: true });
  console.log(figures.join("\n"));
});
