import { expect, test } from "@playwright/test";
import {
  ConsolePage,
  ProjectorPage,
  StudentPage,
  createSession,
  jumpTo,
  pollControls,
  pollOption,
  pollOptions,
  closeContextsAfterEach,
} from "./fixtures";

closeContextsAfterEach();

test("a live poll: vote, change, reload, close, reveal, feedback, ask again", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!, "Live polls");
  const teacher = await ConsolePage.open(browser, session);
  const projector = await ProjectorPage.open(browser, session.code);
  const [ana, bo, cy] = [
    await StudentPage.join(browser, session.code, "Ana"),
    await StudentPage.join(browser, session.code, "Bo"),
    await StudentPage.join(browser, session.code, "Cy"),
  ];
  const students = [ana, bo, cy];
  await teacher.expectParticipants(3);

  // "What happens next, after PICK NODE?" (WaitForFirstConsumer, step 4).
  await jumpTo(teacher, 4);
  for (const s of students) await s.expectStep(4);
  await teacher.page.getByTestId("poll-open").click();
  for (const s of students) {
    await expect(s.page.getByTestId("poll-card")).toHaveAttribute("data-poll-status", "open");
    await expect(pollOptions(s)).toHaveCount(4);
  }
  const question = (await ana.page.locator("#poll-question").textContent())!.trim();
  expect(question).toBe("What happens next, after PICK NODE?");

  // The projector shows the question and the choices, never the tally while the poll is open.
  const projectorPoll = projector.page.getByTestId("projector-poll");
  await expect(projectorPoll.locator("#projector-poll")).toHaveText(question);
  await expect(projectorPoll).toContainText("Vote on your phone");
  await expect(projector.page.getByTestId("poll-tally")).toHaveCount(0);

  // Option ids by text: the lesson says the scheduler records its choice next (NODE CHOSEN).
  const idOf = async (prefix: string) =>
    (await pollOptions(ana)
      .filter({ hasText: new RegExp(`^${prefix}:`) })
      .getAttribute("data-option-id"))!;
  const nodeChosen = await idOf("NODE CHOSEN");
  const provision = await idOf("PROVISION");
  const createDisk = await idOf("CREATE DISK");
  const createPv = await idOf("CREATE PV");
  expect(new Set([nodeChosen, provision, createDisk, createPv]).size).toBe(4);

  // Votes: Ana and Bo once; Cy changes her mind.
  const choice = new Map<StudentPage, string>([
    [ana, nodeChosen],
    [bo, provision],
    [cy, createPv],
  ]);
  await pollOption(ana, nodeChosen).click();
  await pollOption(bo, provision).click();
  await pollOption(cy, createDisk).click();
  await expect(pollOption(cy, createDisk)).toHaveAttribute("aria-pressed", "true");
  await pollOption(cy, createPv).click();
  for (const s of students) {
    await expect(pollOption(s, choice.get(s)!)).toHaveAttribute("aria-pressed", "true");
    await expect(s.page.getByTestId("vote-receipt")).toHaveAttribute("data-kind", "ok");
  }
  await expect(pollOption(cy, createDisk)).toHaveAttribute("aria-pressed", "false");

  const consoleTally = pollControls(teacher).getByTestId("poll-tally");
  await expect(consoleTally).toHaveAttribute("data-total", "3");
  await expect(teacher.page.getByTestId("poll-voted")).toContainText("3 of 3 voted");
  await expect(consoleTally.locator(`li[data-option-id="${createDisk}"]`)).toHaveAttribute("data-count", "0");
  await expect(consoleTally.locator(`li[data-option-id="${createPv}"]`)).toHaveAttribute("data-count", "1");
  // Still no results on the projector after the votes.
  await expect(projector.page.getByTestId("poll-tally")).toHaveCount(0);

  // A reload keeps the student's vote (and does not count them twice).
  await bo.page.reload();
  await bo.expectConnected();
  await expect(pollOption(bo, provision)).toHaveAttribute("aria-pressed", "true");
  await teacher.expectParticipants(3);
  await expect(consoleTally).toHaveAttribute("data-total", "3");

  // Close: the options cannot be tapped any more, and the card says why, once.
  await teacher.page.getByTestId("poll-close").click();
  await expect(ana.page.getByTestId("poll-card")).toHaveAttribute("data-poll-status", "closed");
  await expect(teacher.page.getByTestId("poll-voted")).toContainText("Closed with 3 votes");
  await expect(pollOption(ana, provision)).toBeDisabled();
  await expect(ana.page.getByText("This poll is closed")).toHaveCount(1);
  await expect(projector.page.getByTestId("poll-tally")).toHaveCount(0);
  await expect(consoleTally).toHaveAttribute("data-total", "3");

  // Reveal: the projector shows the results with the right answer marked.
  await teacher.page.getByTestId("poll-reveal").click();
  const projectorTally = projector.page.getByTestId("poll-tally");
  await expect(projectorTally).toHaveAttribute("data-total", "3");
  const correctRow = projectorTally.locator("li[data-option-id]").filter({ hasText: "(correct answer)" });
  await expect(correctRow).toHaveCount(1);
  await expect(correctRow).toContainText("✓");
  const correctId = (await correctRow.getAttribute("data-option-id"))!;
  await expect(consoleTally.locator(`li[data-option-id="${correctId}"]`)).toContainText("✓");
  expect(correctId, "the next step after PICK NODE is NODE CHOSEN").toBe(nodeChosen);
  await expect(projectorTally.locator(`li[data-option-id="${correctId}"]`)).toHaveAttribute("data-count", "1");

  for (const s of students) {
    const right = choice.get(s) === correctId;
    const feedback = s.page.getByTestId("poll-feedback");
    await expect(feedback).toHaveAttribute("data-correct", String(right));
    await expect(feedback).toContainText(right ? "You were right!" : "Not quite.");
  }
  await expect(ana.page.getByTestId("poll-feedback")).toContainText("You were right!");

  // Ask again: round 2, with live results on the projector only once the teacher ticks the box.
  await teacher.page.getByTestId("poll-reopen").click();
  for (const s of students) {
    await expect(s.page.getByTestId("poll-card")).toHaveAttribute("data-poll-status", "open");
    await expect(pollOptions(s)).toHaveCount(4);
    await expect(pollOptions(s).and(s.page.locator("[aria-pressed=true]"))).toHaveCount(0);
  }
  await expect(pollControls(teacher)).toContainText("(round 2)");
  await expect(consoleTally).toHaveAttribute("data-total", "0");
  await expect(projector.page.getByTestId("projector-poll")).toContainText("Vote on your phone");
  await expect(projector.page.getByTestId("poll-tally")).toHaveCount(0);

  await pollOption(ana, nodeChosen).click();
  await expect(consoleTally).toHaveAttribute("data-total", "1");
  await expect(projector.page.getByTestId("poll-tally")).toHaveCount(0);

  // The checkbox mirrors the server's state, so it flips once the server confirms: click, then wait.
  await teacher.page.getByTestId("poll-show-live").click();
  await expect(teacher.page.getByTestId("poll-show-live")).toBeChecked();
  await expect(projectorTally).toHaveAttribute("data-total", "1");
  await pollOption(bo, nodeChosen).click();
  await pollOption(cy, nodeChosen).click();
  await expect(projectorTally).toHaveAttribute("data-total", "3");
  await expect(projectorTally.locator(`li[data-option-id="${nodeChosen}"]`)).toHaveAttribute("data-count", "3");
  await expect(teacher.page.getByTestId("poll-voted")).toContainText("3 of 3 voted");
  // Unticking hides the results from the projector again.
  await teacher.page.getByTestId("poll-show-live").click();
  await expect(teacher.page.getByTestId("poll-show-live")).not.toBeChecked();
  await expect(projector.page.getByTestId("poll-tally")).toHaveCount(0);
  await expect(projector.page.getByTestId("projector-poll")).toContainText("Vote on your phone");

  // Closing round 2 shows the teacher how the class moved.
  await teacher.page.getByTestId("poll-close").click();
  const shift = teacher.page.getByTestId("poll-shift");
  await expect(shift).toBeVisible();
  await expect(shift).toContainText("Shift between round 1 and round 2");
  await expect(shift.locator("tr").filter({ hasText: "NODE CHOSEN" })).toContainText("33%");
  await expect(shift.locator("tr").filter({ hasText: "NODE CHOSEN" })).toContainText("100%");
});
