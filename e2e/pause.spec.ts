import { expect, test } from "@playwright/test";
import { ConsolePage, ProjectorPage, StudentPage, createSession, pollOption, pollOptions, closeContextsAfterEach } from "./fixtures";

closeContextsAfterEach();

test("the teacher pauses the class: phones and the projector say so, votes and questions wait, and resume brings them back", async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const session = await createSession(baseURL!, "Pause");
  const teacher = await ConsolePage.open(browser, session);
  const projector = await ProjectorPage.open(browser, session.code);
  const ana = await StudentPage.join(browser, session.code, "Ana");
  const bo = await StudentPage.join(browser, session.code, "Bo");
  await teacher.expectParticipants(2);

  await teacher.page.getByTestId("poll-open").click();
  for (const s of [ana, bo]) await expect(pollOptions(s)).toHaveCount(4);
  const first = (await pollOptions(ana).first().getAttribute("data-option-id"))!;
  await pollOption(ana, first).click();
  await expect(ana.page.getByTestId("vote-receipt")).toHaveAttribute("data-kind", "ok");

  const pause = teacher.page.getByTestId("pause-class");
  await expect(pause).toHaveAttribute("aria-pressed", "false");
  for (const view of [projector, ana, bo]) await expect(view.page.getByTestId("class-paused")).toHaveCount(0);
  await pause.click();
  await expect(pause).toHaveAttribute("aria-pressed", "true");
  await expect(pause).toHaveText("Resume class");

  // Every phone and the projector show it; a phone cannot vote while paused.
  await expect(projector.page.getByTestId("class-paused")).toBeVisible();
  await expect(projector.page.getByTestId("class-paused")).toContainText("Paused");
  // Nothing on either screen still invites a vote that would be refused.
  await expect(projector.page.getByTestId("projector-poll")).toContainText("Voting paused");
  await expect(projector.page.getByTestId("projector-poll")).not.toContainText("Vote on your phone");
  await expect(bo.page.getByTestId("poll-card")).toContainText("voting paused");
  for (const s of [ana, bo]) {
    await expect(s.page.getByTestId("class-paused")).toBeVisible();
    for (const option of await pollOptions(s).all()) await expect(option).toBeDisabled();
  }
  // A question asked now is refused with the reason, not lost silently.
  await bo.page.getByTestId("ask-question").click();
  await bo.page.getByTestId("question-text").fill("What does the provisioner watch?");
  await bo.page.getByTestId("question-submit").click();
  await expect(bo.page.getByText("The teacher has paused the class")).toBeVisible();

  // The teacher still moves the class on, and a phone that reloads comes back paused.
  await teacher.next();
  await bo.expectStep(2);
  await bo.page.reload();
  await bo.expectConnected();
  await expect(bo.page.getByTestId("class-paused")).toBeVisible();
  await teacher.page.reload();
  await expect(teacher.page.getByTestId("pause-class")).toHaveAttribute("aria-pressed", "true");

  await teacher.page.getByTestId("pause-class").click();
  await expect(teacher.page.getByTestId("pause-class")).toHaveAttribute("aria-pressed", "false");
  for (const view of [projector, ana, bo]) await expect(view.page.getByTestId("class-paused")).toHaveCount(0);
  await expect(projector.page.getByTestId("projector-poll")).toContainText("Vote on your phone");
  await pollOption(bo, first).click();
  await expect(bo.page.getByTestId("vote-receipt")).toHaveAttribute("data-kind", "ok");
  await expect(teacher.page.getByTestId("vote-progress")).toHaveAttribute("data-voted", "2");

  for (const c of [teacher.context, projector.context, ana.context, bo.context]) await c.close();
});
