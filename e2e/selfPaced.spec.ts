import { expect, test, type Locator, type Page } from "@playwright/test";
import { expectAccessible } from "./axe";
import {
  POLL_STEPS,
  STEP_COUNT,
  SelfPacedPhone,
  answersOf,
  assignWffc,
  countAt,
  downloadCsv,
  expectOneMainAndH1,
  learnerCount,
  optionName,
  optionText,
  phoneContext,
  questionAt,
  rightAt,
  signUpTeacher,
  tabTo,
  type FirstAnswer,
  type Plan,
} from "./selfPacedPages";
import { closeContextsAfterEach } from "./fixtures";

/**
 * Issue 30, self-paced, in real Chromium: a teacher assigns the
 * WaitForFirstConsumer scenario; three phones take it at their own pace (one
 * by keyboard alone), one leaves at step 5 and resumes there; the teacher's
 * progress page, left open, shows exactly their answers, and its CSV says the
 * same; closing the assignment stops answers with a sentence a student can
 * read; deleting it stops the link.
 */

closeContextsAfterEach();

// Choices by option name, step 1 first. The right answer at step s is the step that follows (rightAt).
const right = Array.from({ length: POLL_STEPS }, (_, i) => rightAt(i + 1));
const planWith = (changes: Record<number, string>): Plan => right.map((r, i) => changes[i + 1] ?? r);
const ANA: Plan = planWith({ 4: "PROVISION", 5: "CREATE DISK" });
const BO: Plan = planWith({ 2: "PICK NODE", 4: "PROVISION", 9: "MOUNT" });
const CY: Plan = planWith({ 1: "PROVISION", 3: "CREATE DISK" });

/** The teacher's progress page shows exactly `all`: started and finished, each student's row, and every option's count. */
async function expectProgress(page: Page, all: readonly FirstAnswer[], students: { name: string; reached: number; finished: boolean }[]) {
  const progress = page.getByTestId("assignment-progress");
  await expect(progress).toHaveAttribute("data-started", String(students.length));
  await expect(progress).toHaveAttribute("data-finished", String(students.filter((s) => s.finished).length));
  await expect(page.getByTestId("assignment-student")).toHaveCount(students.length);
  for (const s of students) {
    const cells = page.locator(`[data-testid=assignment-student][data-student="${s.name}"] td`);
    const own = learnerCount(all, s.name);
    await expect(cells.nth(1)).toHaveText(`${s.reached} of ${STEP_COUNT}`);
    await expect(cells.nth(2)).toHaveText(String(own.answered));
    await expect(cells.nth(3)).toHaveText(String(own.right));
    if (s.finished) await expect(cells.nth(4)).not.toHaveText("—");
    else await expect(cells.nth(4)).toHaveText("—");
  }
  const polls = page.getByTestId("assignment-poll");
  await expect(polls).toHaveCount(POLL_STEPS);
  for (let step = 1; step <= POLL_STEPS; step++) {
    const poll = polls.filter({ hasText: `Step ${step}: ${questionAt(step)}` });
    const hand = countAt(all, step);
    await expect(poll).toHaveAttribute("data-answered", String(hand.answered));
    const options = poll.getByTestId("assignment-option");
    await expect(options).toHaveCount(4);
    for (const o of await options.all()) {
      const name = optionName((await o.locator("span").first().textContent())!);
      await expect(o, `step ${step}, ${name}`).toHaveAttribute("data-count", String(hand.chosen.get(name) ?? 0));
      await expect(o).toHaveAttribute("data-correct", String(name === rightAt(step)));
    }
  }
}

test("three phones at their own pace, one resumes at step 5: the teacher sees exactly their answers, closes and deletes", async ({
  browser,
}) => {
  test.setTimeout(240_000);
  const teacher = await signUpTeacher(browser, "Ms Adeyemi", "/assignments");
  await expectOneMainAndH1(teacher.page, "/assignments");
  await expectAccessible(teacher.page, "/assignments, the new-assignment form");
  const id = await assignWffc(teacher.page, "WFFC homework");
  await expect(teacher.page.locator(`[data-testid=assignment-item][data-assignment-id="${id}"]`)).toContainText("WFFC homework");
  await expectAccessible(teacher.page, "/assignments, with the new link");

  // The progress page stays open from here on: it refreshes itself while the students walk.
  await teacher.page.getByRole("link", { name: "Watch its progress" }).click();
  await expect(teacher.page).toHaveURL(new RegExp(`/assignments/${id}$`));
  await expectProgress(teacher.page, [], []);
  await expectOneMainAndH1(teacher.page, "/assignments/{id}");
  await expectAccessible(teacher.page, "/assignments/{id}, nobody started");

  // The nickname is required: an empty one does not start the walk.
  const cyContext = await phoneContext(browser);
  const cyPage = await cyContext.newPage();
  await cyPage.goto(`/a/${id}`);
  await expect(cyPage.getByRole("heading", { level: 1 })).toHaveText("WFFC homework");
  await expect(cyPage.getByText(`${STEP_COUNT} steps, ${POLL_STEPS} questions on the way.`)).toBeVisible();
  await expectOneMainAndH1(cyPage, "/a/{id}, the start form");
  await expectAccessible(cyPage, "/a/{id} on a phone, the start form");
  // Cy uses the keyboard only: Tab to the field, Enter to send.
  await tabTo(cyPage, cyPage.getByTestId("selfpaced-nickname"));
  await cyPage.keyboard.press("Enter");
  expect(await cyPage.getByTestId("selfpaced-nickname").evaluate((el) => (el as HTMLInputElement).validity.valueMissing)).toBe(true);
  await expect(cyPage.getByTestId("selfpaced-step")).toHaveCount(0);
  await cyPage.keyboard.type("Cy Fenwick");
  await cyPage.keyboard.press("Enter");
  const cy = new SelfPacedPhone(cyPage, cyContext, "Cy Fenwick", id);
  await cy.expectStep(1);

  const ana = await SelfPacedPhone.start(browser, id, "Ana Quill");
  const bo = await SelfPacedPhone.start(browser, id, "Bo Marsh");
  await expectProgress(
    teacher.page,
    [],
    [
      { name: "Cy Fenwick", reached: 1, finished: false },
      { name: "Ana Quill", reached: 1, finished: false },
      { name: "Bo Marsh", reached: 1, finished: false },
    ],
  );

  // Different speeds: Ana runs to step 6, Bo to step 5, Cy (by keyboard) answers three and stops at step 4.
  await ana.walk(ANA, 6);
  await bo.walk(BO, 5);
  const byKeyboard = async (button: Locator) => {
    await tabTo(cyPage, button);
    await cyPage.keyboard.press("Enter");
  };
  for (let step = 1; step <= 3; step++) {
    await cy.answerAt(step, CY[step - 1], byKeyboard);
    // The feedback took focus; Tab goes on to Back and then Next.
    await tabTo(cyPage, cy.nextButton());
    await cyPage.keyboard.press("Enter");
    await cy.expectStep(step + 1);
  }
  await expect(cy.nextButton()).toBeDisabled();
  await expect(cyPage.getByText("Answer the question to go on.")).toBeVisible();
  await expectOneMainAndH1(cyPage, "/a/{id}, walking");
  await expectAccessible(cyPage, "/a/{id} on a phone, a question to answer");

  let all = [...answersOf("Ana Quill", ANA, 5), ...answersOf("Bo Marsh", BO, 4), ...answersOf("Cy Fenwick", CY, 3)];
  await expectProgress(teacher.page, all, [
    { name: "Cy Fenwick", reached: 4, finished: false },
    { name: "Ana Quill", reached: 6, finished: false },
    { name: "Bo Marsh", reached: 5, finished: false },
  ]);

  // Bo leaves at step 5 before answering, and comes back on the same phone: step 5, his earlier answers kept.
  await bo.expectStep(5);
  await bo.page.close();
  bo.page = await bo.context.newPage();
  await bo.page.goto(`/a/${id}`);
  await bo.expectStep(5);
  await expect(bo.page.getByTestId("selfpaced-nickname")).toHaveCount(0);
  await expect(bo.page.getByText("Bo Marsh ·")).toBeVisible();
  await expect(bo.nextButton()).toBeDisabled();
  await expect(bo.feedback()).toHaveCount(0);
  await bo.page.getByTestId("selfpaced-prev").tap();
  await bo.expectStep(4);
  await bo.expectFeedback(BO[3], rightAt(4));
  await bo.next(5);
  await expect(bo.nextButton()).toBeDisabled();

  // Both run to the end.
  await ana.walk(ANA, STEP_COUNT);
  await bo.walk(BO, STEP_COUNT);
  all = [...answersOf("Ana Quill", ANA, POLL_STEPS), ...answersOf("Bo Marsh", BO, POLL_STEPS), ...answersOf("Cy Fenwick", CY, 3)];
  for (const phone of [ana, bo]) {
    const own = learnerCount(all, phone.name);
    await expect(phone.page.getByTestId("selfpaced-finished")).toContainText(
      `You have finished this assignment: ${own.right} of ${POLL_STEPS} first answers right.`,
    );
    await expect(phone.nextButton()).toBeDisabled();
  }
  await expectAccessible(ana.page, "/a/{id} on a phone, finished");

  const students = [
    { name: "Cy Fenwick", reached: 4, finished: false },
    { name: "Ana Quill", reached: STEP_COUNT, finished: true },
    { name: "Bo Marsh", reached: STEP_COUNT, finished: true },
  ];
  await expectProgress(teacher.page, all, students);
  await expectAccessible(teacher.page, "/assignments/{id}, with answers");

  // The export says what the screen says: one row per student, their answer to each question and whether it was right.
  const csv = await downloadCsv(teacher.page, teacher.page.getByTestId("assignment-export"));
  expect(csv.filename).toMatch(/^assignment-.+\.csv$/);
  const [header, ...rows] = csv.rows;
  expect(header.slice(0, 5)).toEqual(["student", "started", "step reached", "finished", "right"]);
  expect(header.length).toBe(5 + 2 * POLL_STEPS);
  for (let step = 1; step <= POLL_STEPS; step++) expect(header[3 + 2 * step]).toBe(`step ${step}: ${questionAt(step)}`);
  expect(rows.map((r) => r[0]).sort()).toEqual(students.map((s) => s.name).sort());
  const plans = new Map([
    ["Ana Quill", ANA],
    ["Bo Marsh", BO],
    ["Cy Fenwick", CY.slice(0, 3)],
  ]);
  for (const row of rows) {
    const cells = teacher.page.locator(`[data-testid=assignment-student][data-student="${row[0]}"] td`);
    expect(`${row[2]} of ${STEP_COUNT}`).toBe(await cells.nth(1).textContent());
    expect(row[4]).toBe(await cells.nth(3).textContent());
    expect(row[3] !== "", `${row[0]} finished`).toBe(students.find((s) => s.name === row[0])!.finished);
    const plan = plans.get(row[0])!;
    for (let step = 1; step <= POLL_STEPS; step++) {
      const [chose, wasRight] = [row[3 + 2 * step], row[4 + 2 * step]];
      if (step > plan.length) expect([chose, wasRight], `${row[0]} step ${step}`).toEqual(["", ""]);
      else {
        expect(chose, `${row[0]} step ${step}`).toMatch(optionText(plan[step - 1]));
        expect(wasRight).toBe(plan[step - 1] === rightAt(step) ? "yes" : "no");
      }
    }
  }

  // Closing: the page Cy left open refuses her answer with a sentence; on reload it says the assignment is closed.
  await teacher.page.getByTestId("assignment-close").click();
  await expect(teacher.page.getByTestId("assignment-close")).toHaveText("Reopen");
  await expect(teacher.page.getByText("closed: it takes no more answers")).toBeVisible();
  await cy.answer(CY[3]).tap();
  await expect(cyPage.locator("main").getByRole("alert")).toHaveText("Your teacher has closed this assignment: it takes no more answers.");
  await expect(cy.feedback()).toHaveCount(0);
  await cyPage.reload();
  await cy.expectStep(4);
  await expect(cyPage.getByTestId("selfpaced-closed")).toContainText("Your teacher has closed this assignment");
  for (const b of await cy.answers().all()) await expect(b).toBeDisabled();
  await expect(cy.nextButton()).toBeDisabled();
  await expect(cyPage.getByText("The assignment takes no more answers, so you cannot go past this question.")).toBeVisible();
  // She can still look back at the steps she reached, with her answers.
  await tabTo(cyPage, cyPage.getByTestId("selfpaced-prev"));
  await cyPage.keyboard.press("Enter");
  await cy.expectStep(3);
  await cy.expectFeedback(CY[2], rightAt(3));
  await expectAccessible(cyPage, "/a/{id} on a phone, closed");
  // A new phone cannot start it.
  const late = await (await phoneContext(browser)).newPage();
  await late.goto(`/a/${id}`);
  await expect(late.locator("main").getByRole("alert")).toHaveText("Your teacher has closed this assignment. It takes no new answers.");
  await expect(late.getByTestId("selfpaced-start")).toHaveCount(0);
  // Nothing changed on the teacher's page.
  await expectProgress(teacher.page, all, students);

  // Deleting: the link opens nothing any more.
  await teacher.page.getByTestId("assignment-delete").click();
  await teacher.page.getByTestId("assignment-delete-confirm").click();
  await expect(teacher.page.getByText("The assignment is deleted; its link no longer opens.")).toBeVisible();
  await ana.page.reload();
  await expect(ana.page.getByRole("heading", { level: 1 })).toHaveText("This assignment cannot be opened");
  await expect(ana.page.locator("main").getByRole("alert")).toHaveText("There is no assignment at this link.");
});
