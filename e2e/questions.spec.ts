import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { expectAccessible } from "./axe";
import { ConsolePage, ProjectorPage, StudentPage, createSession, jumpTo, closeContextsAfterEach } from "./fixtures";

closeContextsAfterEach();

/** A student's question about one part of the diagram, by the test hooks. */
function questionItem(view: StudentPage | ConsolePage, questionId: string) {
  return view.page.locator(`[data-testid=question-item][data-question-id="${questionId}"]`);
}

test("a question about step 5's arrow: asked, upvoted, shown on the projector, answered; a student looking back is pulled to live by a poll; all of it replays and exports", async ({
  browser,
  baseURL,
}) => {
  // Five browser contexts and a replay: longer than one poll's spec.
  test.setTimeout(150_000);
  const session = await createSession(baseURL!, "Questions class");
  const teacher = await ConsolePage.open(browser, session);
  const projector = await ProjectorPage.open(browser, session.code);
  const [ana, bo, cy, di] = [
    await StudentPage.join(browser, session.code, "Ana"),
    await StudentPage.join(browser, session.code, "Bo"),
    await StudentPage.join(browser, session.code, "Cy"),
    await StudentPage.join(browser, session.code, "Di"),
  ];
  await teacher.expectParticipants(4);
  await jumpTo(teacher, 9);
  for (const s of [ana, bo, cy, di]) await s.expectStep(9);

  // Ana opens the full drawing on her phone and taps step 5's arrow: it is in focus for her question.
  await ana.page.getByText("Show the full diagram").click();
  await ana.page.locator('[data-testid=full-diagram] [data-testid=diagram-element][data-element="arrow:4"]').click();
  await expect(ana.page.getByTestId("question-target")).toHaveAttribute("data-element", "arrow:4");
  await expect(ana.page.getByTestId("question-target")).toContainText("Step 5 · NODE CHOSEN, arrow");
  await ana.page.getByTestId("ask-question").click();
  await ana.page.getByTestId("question-text").fill("Why does the scheduler write to the PVC here?");
  await ana.page.getByTestId("question-submit").click();
  await expect(ana.page.getByTestId("question-receipt")).toHaveAttribute("data-kind", "ok");
  const asked = ana.page.getByTestId("question-item");
  await expect(asked).toHaveCount(1);
  const questionId = (await asked.getAttribute("data-question-id"))!;
  await expect(asked).toContainText("You asked");
  // Her own question cannot be upvoted by her.
  await expect(asked.getByTestId("question-upvote")).toBeDisabled();

  // Bo and Cy see it, with its name and a count, and upvote it; the marker on the arrow counts it.
  for (const s of [bo, cy]) {
    await expect(questionItem(s, questionId)).toHaveAttribute("data-votes", "0");
    await expect(questionItem(s, questionId)).toContainText("Ana");
  }
  for (const s of [bo, cy]) {
    const item = questionItem(s, questionId);
    await item.getByTestId("question-upvote").click();
    await expect(item.getByTestId("question-upvote")).toHaveAttribute("aria-pressed", "true");
  }
  for (const view of [ana, bo, cy, teacher]) await expect(questionItem(view, questionId)).toHaveAttribute("data-votes", "2");
  await bo.page.getByText("Show the full diagram").click();
  await expect(bo.page.locator('[data-testid=full-diagram] [data-testid=question-marker][data-element="arrow:4"]')).toHaveAttribute(
    "data-count",
    "1",
  );
  // A reload keeps Bo's upvote, and does not count it twice.
  await bo.page.reload();
  await bo.expectConnected();
  await expect(questionItem(bo, questionId).getByTestId("question-upvote")).toHaveAttribute("aria-pressed", "true");
  await expect(questionItem(bo, questionId)).toHaveAttribute("data-votes", "2");

  // The console groups it under step 5's arrow; the teacher shows it on the projector, next to the arrow.
  const consoleItem = questionItem(teacher, questionId);
  await expect(teacher.page.getByTestId("question-group").filter({ has: consoleItem })).toContainText("Step 5 · NODE CHOSEN, arrow");
  await consoleItem.getByTestId("question-show").click();
  const shown = projector.page.getByTestId("projector-question");
  await expect(shown).toHaveAttribute("data-question-id", questionId);
  await expect(shown).toHaveAttribute("data-element", "arrow:4");
  await expect(shown).toHaveAttribute("data-anchored", "true");
  // Wrapped over lines of SVG text: read it the way the room does, line after line.
  await expect
    .poll(async () => (await shown.locator("text").allTextContents()).join(" "))
    .toContain("Why does the scheduler write to the PVC here?");
  // Readable from the back: the question's type is at least 28 px on a 1920x1080 projector, and it stays on the screen.
  const sizes = await shown.locator("text").evaluateAll((texts) =>
    texts.map((t) => {
      const ctm = (t as SVGGraphicsElement).getScreenCTM();
      return parseFloat(getComputedStyle(t).fontSize) * (ctm ? Math.hypot(ctm.a, ctm.b) : 1);
    }),
  );
  expect(Math.max(...sizes)).toBeGreaterThanOrEqual(28);
  expect(Math.min(...sizes)).toBeGreaterThanOrEqual(20);
  const box = (await shown.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.y + box.height).toBeLessThanOrEqual(1080);
  expect(box.x + box.width).toBeLessThanOrEqual(1920);
  await expect(questionItem(bo, questionId)).toContainText("on the projector now");

  await consoleItem.getByTestId("question-answered").click();
  await expect(consoleItem.getByTestId("question-answered")).toHaveAttribute("aria-pressed", "true");
  await expect(questionItem(bo, questionId)).toHaveAttribute("data-status", "answered");
  await expect(shown).toHaveAttribute("aria-label", /· answered: Why does/);

  // Di looks back to step 3 (never ahead), reads it there, and the console counts one student looking back.
  for (let n = 0; n < 6; n++) await di.page.getByTestId("look-back").first().click();
  await di.expectStep(3);
  await expect(di.page.getByTestId("back-to-live")).toHaveAttribute("data-live-step", "9");
  await expect(di.page.getByTestId("step-trail").locator("li")).toHaveCount(3);
  await expect(teacher.page.getByTestId("looking-back-count")).toHaveAttribute("data-count", "1");
  await expectAccessible(di.page, "a student looking back, with the questions");
  // "Back to live" works in one tap, and she can look back again.
  await di.page.getByTestId("back-to-live").click();
  await di.expectStep(9);
  await expect(teacher.page.getByTestId("looking-back-count")).toHaveAttribute("data-count", "0");
  for (let n = 0; n < 6; n++) await di.page.getByTestId("look-back").first().click();
  await di.expectStep(3);
  await expect(teacher.page.getByTestId("looking-back-count")).toHaveAttribute("data-count", "1");

  // A poll opens: Di is back on the live step with the poll on screen.
  await teacher.page.getByTestId("poll-open").click();
  await expect(di.page.getByTestId("poll-card")).toBeInViewport();
  await di.expectStep(9);
  await expect(di.page.getByTestId("back-to-live")).toHaveCount(0);
  await expect(teacher.page.getByTestId("looking-back-count")).toHaveAttribute("data-count", "0");
  await expectAccessible(teacher.page, "the console with a question shown and answered");

  // End; the replay has the question at the moment it was asked, and the exports have it.
  await teacher.page.getByTestId("poll-close").click();
  await teacher.page.getByTestId("end-session").click();
  await teacher.page.getByTestId("end-session-confirm").click();
  await expect(teacher.page.getByTestId("replay-link")).toBeVisible();
  await teacher.page.goto(`/replay/${session.id}`);
  await expect(teacher.page.locator("[data-testid=replay-mark][data-kind=question]")).toHaveCount(1);
  await expect(teacher.page.getByTestId("replay-question")).toHaveCount(0);
  await teacher.page.locator("body").press("End");
  const replayed = teacher.page.getByTestId("replay-question");
  await expect(replayed).toHaveAttribute("data-votes", "2");
  await expect(replayed).toHaveAttribute("data-status", "answered");
  await expect(replayed).toContainText("Step 5 · NODE CHOSEN, arrow");

  await teacher.page.goto("/sessions");
  const row = teacher.page.locator(`[data-testid=session-row][data-code="${session.code}"]`);
  const [download] = await Promise.all([teacher.page.waitForEvent("download"), row.getByTestId("questions-csv").click()]);
  const csv = fs.readFileSync((await download.path())!, "utf8").split("\r\n");
  expect(csv[0]).toBe("question,scenario,step,element,votes,status,asked at,asked by");
  expect(csv[1]).toMatch(/^Why does the scheduler write to the PVC here\?,[^,]+,Step 5 · NODE CHOSEN,arrow,2,answered,[^,]+,Ana$/);
});

test("moderated and anonymous: the class sees nothing until the teacher approves, and never the asker's name", async ({
  browser,
  baseURL,
}) => {
  const session = await createSession(baseURL!, "Moderated questions");
  const teacher = await ConsolePage.open(browser, session);
  const [ana, bo] = [await StudentPage.join(browser, session.code, "Ana"), await StudentPage.join(browser, session.code, "Bo")];
  await teacher.expectParticipants(2);
  await jumpTo(teacher, 2);
  await teacher.page.getByTestId("questions-mode").selectOption("moderated");
  await expect(ana.page.getByText("The teacher approves questions first.")).toBeVisible();

  // Ana taps step 2 in her list and asks anonymously.
  await ana.page.locator('[data-testid=step-trail] [data-element="step:1"]').click();
  // The tap opens the ask box beside the step (components/student/AskHere.tsx), over whatever is below it: she asks there.
  const box = ana.page.getByTestId("ask-here");
  await expect(box).toBeVisible();
  await box.getByTestId("question-text").fill("Is the Pod created before the PVC binds?");
  await box.getByTestId("question-anonymous").check();
  await box.getByTestId("question-submit").click();
  await expect(box.getByTestId("question-receipt")).toContainText("once the teacher approves it");
  await expect(ana.page.getByTestId("question-item")).toHaveAttribute("data-status", "pending");

  const consoleItem = teacher.page.getByTestId("question-item");
  await expect(consoleItem).toHaveAttribute("data-status", "pending");
  await expect(consoleItem).toContainText("Anonymous");
  await expect(consoleItem).not.toContainText("Ana");
  await expect(bo.page.getByTestId("question-item")).toHaveCount(0);
  await consoleItem.getByTestId("question-approve").click();
  const boItem = bo.page.getByTestId("question-item");
  await expect(boItem).toHaveAttribute("data-status", "open");
  await expect(boItem).toContainText("Anonymous");
  await expect(bo.page.getByTestId("student-questions")).not.toContainText("Ana");
  // Off: nobody can ask, and the questions leave the phones.
  await teacher.page.getByTestId("questions-mode").selectOption("off");
  await expect(bo.page.getByTestId("student-questions")).toHaveCount(0);
  await expect(bo.page.getByTestId("ask-question")).toHaveCount(0);
});
