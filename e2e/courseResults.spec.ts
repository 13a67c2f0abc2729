import { expect, test, type Page } from "@playwright/test";
import { expectAccessible } from "./axe";
import { ConsolePage, StudentPage, jumpTo, pollControls, pollOption, pollOptions, closeContextsAfterEach } from "./fixtures";
import {
  POLL_STEPS,
  SelfPacedPhone,
  answersOf,
  assignWffc,
  countAt,
  downloadCsv,
  expectOneMainAndH1,
  learnerCount,
  optionName,
  optionText,
  questionAt,
  rightAt,
  signUpTeacher,
  type FirstAnswer,
  type Plan,
} from "./selfPacedPages";

/**
 * Issue 30, results across a course, in real Chromium: the teacher's
 * WaitForFirstConsumer assignment, taken by three phones, and a live class
 * of the same built-in lesson, where the poll at step 4 (which the
 * assignment also asks) is asked twice, add up on one results page. Every
 * count on it is checked against a hand count of what the phones chose: the
 * first answers and right answers per question, each wrong option's
 * misconception row, the normalized gain, each student's misconceptions
 * (matched by nickname across the assignment and the class), and both CSVs.
 */

closeContextsAfterEach();

const right = Array.from({ length: POLL_STEPS }, (_, i) => rightAt(i + 1));
const planWith = (changes: Record<number, string>): Plan => right.map((r, i) => changes[i + 1] ?? r);
const ANA: Plan = planWith({ 4: "PROVISION", 7: "BIND POD" });
const BO: Plan = planWith({ 1: "NEW POD", 4: "CREATE PV", 6: "BIND POD" });
/** Cy answers the first five and stops at step 6. */
const CY: Plan = planWith({ 2: "PICK NODE", 4: "PROVISION" }).slice(0, 5);

/** The live poll at step 4, "What happens next, after PICK NODE?": each round's votes as they stand when it closes. */
const LIVE_STEP = 4;
const ROUND_1 = { "Ana Quill": "NODE CHOSEN", "Bo Marsh": "PROVISION", "Dee Ostrom": "CREATE PV" };
const ROUND_2 = { "Ana Quill": "NODE CHOSEN", "Bo Marsh": "NODE CHOSEN", "Dee Ostrom": "CREATE DISK" };

const shareRight = (round: Record<string, string>) =>
  Object.values(round).filter((c) => c === rightAt(LIVE_STEP)).length / Object.values(round).length;

/** A phone's live poll option by its name, found by text while nobody has chosen it (a chosen one is marked "✓ "). */
async function liveOption(phone: StudentPage, name: string) {
  const id = await pollOptions(phone)
    .filter({ hasText: optionText(name) })
    .getAttribute("data-option-id");
  return pollOption(phone, id!);
}

/** A round in class: each phone taps its option (Dee changes her mind first), and the console counts them all. */
async function vote(host: ConsolePage, phones: Map<string, StudentPage>, round: Record<string, string>, changeFirst?: string) {
  for (const [name, choice] of Object.entries(round)) {
    const phone = phones.get(name)!;
    await expect(phone.page.getByTestId("poll-card")).toHaveAttribute("data-poll-status", "open");
    await expect(pollOptions(phone).and(phone.page.locator("[aria-pressed=true]"))).toHaveCount(0);
    const chosen = await liveOption(phone, choice);
    if (changeFirst && name === "Dee Ostrom") {
      const first = await liveOption(phone, changeFirst);
      await first.tap();
      await expect(first).toHaveAttribute("aria-pressed", "true");
    }
    await chosen.tap();
    await expect(chosen).toHaveAttribute("aria-pressed", "true");
  }
  await expect(pollControls(host).getByTestId("poll-tally")).toHaveAttribute("data-total", String(Object.keys(round).length));
}

/** The card of the question at `step` on the results page. */
const resultCard = (page: Page, step: number) =>
  page.getByTestId("poll-result").filter({ has: page.getByRole("heading", { name: questionAt(step) }) });

test("an assignment and a live class of the built-in lesson add up on one results page, as a hand count says, and so do its CSVs", async ({
  browser,
}) => {
  test.setTimeout(240_000);
  const teacher = await signUpTeacher(browser, "Mr Lindqvist", "/assignments");
  const id = await assignWffc(teacher.page, "Revision: WaitForFirstConsumer");

  // Three phones take the assignment; what each was told after a wrong answer is kept for the results page.
  const phones: SelfPacedPhone[] = [];
  for (const [name, plan] of [
    ["Ana Quill", ANA],
    ["Bo Marsh", BO],
    ["Cy Fenwick", CY],
  ] as const) {
    const phone = await SelfPacedPhone.start(browser, id, name);
    await phone.walk(plan, plan.length + 1);
    phones.push(phone);
  }
  await expect(phones[0].page.getByTestId("selfpaced-finished")).toBeVisible();
  await expect(phones[2].page.getByTestId("selfpaced-finished")).toHaveCount(0);
  const noteOf = new Map<string, string>();
  for (const p of phones) for (const [step, n] of p.notes) noteOf.set(`${step}|${n.choice}`, n.note);

  // The same teacher, signed in, runs a live class of the built-in lesson with three phones.
  const consolePage = await teacher.context.newPage();
  await consolePage.goto("/");
  await consolePage.getByLabel("Title").fill("Tuesday storage");
  await consolePage.getByTestId("start-session").click();
  await expect(consolePage).toHaveURL(/\/host\/[A-Z2-9]{6}$/);
  const host = new ConsolePage(consolePage, teacher.context);
  const code = (await consolePage.getByTestId("room-code").textContent())!.trim();
  const live = new Map<string, StudentPage>();
  for (const name of Object.keys(ROUND_1)) live.set(name, await StudentPage.join(browser, code, name));
  await host.expectParticipants(live.size);

  await jumpTo(host, LIVE_STEP);
  await consolePage.getByTestId("poll-open").click();
  await expect(pollControls(host)).toContainText(questionAt(LIVE_STEP));
  await vote(host, live, ROUND_1, "CREATE DISK");
  await consolePage.getByTestId("poll-close").click();
  await expect(consolePage.getByTestId("poll-voted")).toContainText("Closed with 3 votes");
  // Peer discussion, then the same question again.
  await consolePage.getByTestId("poll-reopen").click();
  await expect(pollControls(host)).toContainText("(round 2)");
  await expect(pollControls(host).getByTestId("poll-tally")).toHaveAttribute("data-total", "0");
  await vote(host, live, ROUND_2);
  await consolePage.getByTestId("poll-close").click();
  await expect(consolePage.getByTestId("poll-shift")).toBeVisible();
  await consolePage.getByTestId("end-session").click();
  await consolePage.getByTestId("end-session-confirm").click();
  await expect(consolePage.getByTestId("replay-link")).toBeVisible();

  // The hand count: every assignment answer, and the first round's votes in class.
  const all: FirstAnswer[] = [
    ...answersOf("Ana Quill", ANA, POLL_STEPS),
    ...answersOf("Bo Marsh", BO, POLL_STEPS),
    ...answersOf("Cy Fenwick", CY, CY.length),
    ...Object.entries(ROUND_1).map(([who, choice]) => ({ who, step: LIVE_STEP, choice })),
  ];
  const before = shareRight(ROUND_1);
  const gain = ((shareRight(ROUND_2) - before) / (1 - before)).toFixed(3);
  expect(gain, "the hand count: a third right before, two thirds after").toBe("0.500");

  const page = await teacher.context.newPage();
  await page.goto("/results/builtin");
  await expect(page.getByTestId("results-sources")).toHaveAttribute("data-sessions", "1");
  await expect(page.getByTestId("results-sources")).toHaveAttribute("data-assignments", "1");
  await expect(page.getByTestId("poll-result")).toHaveCount(POLL_STEPS);
  for (let step = 1; step <= POLL_STEPS; step++) {
    const card = resultCard(page, step);
    const hand = countAt(all, step);
    await expect(card, `step ${step}`).toHaveAttribute("data-first-answers", String(hand.answered));
    await expect(card, `step ${step}`).toHaveAttribute("data-right", String(hand.right));
    await expect(card.getByRole("heading")).toContainText(`(asked ${step === LIVE_STEP ? 2 : 1} ${step === LIVE_STEP ? "times" : "time"})`);
    const rows = card.getByTestId("misconception-row");
    await expect(rows, `step ${step}: one row per wrong option`).toHaveCount(3);
    let previous = Infinity;
    for (const row of await rows.all()) {
      const name = optionName((await row.getAttribute("data-option"))!);
      expect(name, `step ${step}: a wrong option`).not.toBe(rightAt(step));
      const chosen = hand.chosen.get(name) ?? 0;
      await expect(row, `step ${step}, ${name}`).toHaveAttribute("data-chosen", String(chosen));
      await expect(row).toHaveAttribute("data-poll", (await card.getAttribute("data-poll"))!);
      // Most chosen first.
      expect(chosen).toBeLessThanOrEqual(previous);
      previous = chosen;
      // The misconception note is the one the phone showed after that wrong answer.
      const shown = noteOf.get(`${step}|${name}`);
      if (shown) await expect(row.locator("td").nth(2)).toHaveText(shown);
    }
  }
  // Only the poll asked twice in class has a gain.
  await expect(page.getByTestId("normalized-gain")).toHaveCount(1);
  await expect(resultCard(page, LIVE_STEP).getByTestId("normalized-gain")).toHaveAttribute("data-gain", gain);

  // Per student, matched by nickname across the assignment and the class.
  const learners = ["Ana Quill", "Bo Marsh", "Cy Fenwick", "Dee Ostrom"];
  await expect(page.getByTestId("learner-row")).toHaveCount(learners.length);
  for (const name of learners) {
    const own = learnerCount(all, name);
    const row = page.locator(`[data-testid=learner-row][data-learner="${name}"]`);
    await expect(row, name).toHaveAttribute("data-wrong", String(own.wrong));
    await expect(row.locator("p").first()).toContainText(`${name} ${own.right} of ${own.answered} first answers right`);
    await expect(row.locator("li")).toHaveCount(own.wrong);
  }
  await expectOneMainAndH1(page, "/results/builtin");
  await expectAccessible(page, "/results/builtin");

  // The per-question CSV says what the page says, and names no student.
  const polls = await downloadCsv(page, page.getByTestId("results-export-polls"));
  expect(polls.filename).toBe("builtin-lesson-results.csv");
  for (const name of learners) expect(polls.text, "the per-question sheet names nobody").not.toContain(name.split(" ")[1]);
  const [head, ...lines] = polls.rows;
  expect(head).toEqual([
    "poll",
    "question",
    "first answers",
    "right",
    "right %",
    "option",
    "correct",
    "chosen",
    "note",
    "round 1 right %",
    "round 2 right %",
    "normalized gain",
  ]);
  expect(lines.length).toBe(4 * POLL_STEPS);
  for (let step = 1; step <= POLL_STEPS; step++) {
    const card = resultCard(page, step);
    const key = (await card.getAttribute("data-poll"))!;
    const mine = lines.filter((l) => l[0] === key);
    expect(mine.length, key).toBe(4);
    for (const l of mine) {
      expect(l[1]).toBe(questionAt(step));
      expect(l[2]).toBe(await card.getAttribute("data-first-answers"));
      expect(l[3]).toBe(await card.getAttribute("data-right"));
      const name = optionName(l[5]);
      expect(l[6]).toBe(name === rightAt(step) ? "yes" : "no");
      if (name !== rightAt(step)) {
        const row = card.locator(`[data-testid=misconception-row][data-option="${l[5]}"]`);
        expect(l[7], `${key} ${name}`).toBe(await row.getAttribute("data-chosen"));
        expect(l[8]).toBe(await row.locator("td").nth(2).textContent());
      } else expect(Number(l[7])).toBe(countAt(all, step).right);
      expect(l[11]).toBe(step === LIVE_STEP ? gain : "");
    }
  }

  // The per-student CSV (the teacher's alone): each student's wrong first answers, as on the page.
  const students = await downloadCsv(page, page.getByTestId("results-export-students"));
  expect(students.rows[0]).toEqual(["student", "answered", "right", "question", "chose", "misconception", "where", "when"]);
  for (const name of learners) {
    const own = learnerCount(all, name);
    const mine = students.rows.slice(1).filter((r) => r[0] === name);
    expect(mine.length, name).toBe(Math.max(1, own.wrong));
    for (const r of mine) expect([r[1], r[2]]).toEqual([String(own.answered), String(own.right)]);
    const wrongChoices = all.filter((a) => a.who === name && a.choice !== rightAt(a.step));
    expect(
      mine
        .filter((r) => r[4] !== "")
        .map((r) => optionName(r[4]))
        .sort(),
    ).toEqual(wrongChoices.map((a) => a.choice).sort());
  }
});
