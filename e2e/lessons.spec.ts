import { expect, test } from "@playwright/test";
import { ConsolePage, StudentPage, pollOption, pollOptions, closeContextsAfterEach } from "./fixtures";

closeContextsAfterEach();

// A teacher's own diagram, for another topic: nine messages, with one typo (line 10 has no target).
const DIAGRAM = `---
title: Pod eviction
---
sequenceDiagram
  participant K as Kubelet
  participant A as API server
  participant C as Controller
  K->>K: Memory pressure detected
  K->>A: Mark the node MemoryPressure
  A-->>: Taint the node
  K->>A: Evict the lowest-priority Pod
  %% wrong: The kubelet evicts on its own; nobody asks it to.
  A-->>C: Pod deleted
  C->>A: Create a replacement Pod
  A-->>K: Replacement scheduled elsewhere
  %% why: The taint keeps new Pods off the node under pressure.
  K->>A: Pressure relieved
  A-->>K: Taint removed
`;

test("a teacher turns their own Mermaid diagram into a live lesson, fixes an error, teaches it to phones, replays and exports it", async ({
  browser,
}) => {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  const page = await context.newPage();
  await page.goto("/");
  await page.getByTestId("new-lesson").click();
  await expect(page).toHaveURL(/\/lessons\/edit/);

  const source = page.getByTestId("lesson-source");
  // The editor puts its example in once it has loaded; typing before that would be overwritten.
  await expect(source).not.toHaveValue("");
  await source.fill(DIAGRAM);
  // The preview points at the typo's line and column, and saving is off until it is fixed.
  const error = page.getByTestId("lesson-error");
  await expect(error).toBeVisible();
  await expect(error).toHaveAttribute("data-line", "10");
  await expect(page.getByTestId("lesson-save")).toBeDisabled();
  await source.fill(DIAGRAM.replace("A-->>: Taint the node", "A-->>K: Taint the node"));
  await expect(error).toHaveCount(0);
  const preview = page.getByTestId("lesson-preview");
  await expect(preview).toHaveAttribute("data-steps", "9");
  await expect(preview.locator("[data-lifeline]")).toHaveCount(3);
  await expect(preview.locator("[data-step-label]")).toHaveCount(9);
  await expect(preview).toContainText("Taint the node");

  await page.getByTestId("lesson-save").click();
  await expect(page.getByTestId("lesson-status")).toContainText("Saved");

  // Listed in this browser, with the Mermaid export exactly as written.
  await page.goto("/lessons");
  const item = page.getByTestId("lesson-item");
  await expect(item).toHaveCount(1);
  await expect(item).toContainText("Pod eviction");
  await expect(item).toContainText("9 steps");
  const download = page.waitForEvent("download");
  await item.getByTestId("lesson-export").click();
  const file = await download;
  const fs = await import("node:fs/promises");
  expect(await fs.readFile((await file.path())!, "utf8")).toBe(DIAGRAM.replace("A-->>: Taint the node", "A-->>K: Taint the node"));

  // Start a session from it: the console runs the lesson, without the Kubernetes panels.
  await item.getByTestId("lesson-start").click();
  await expect(page).toHaveURL(/\/host\/[A-Z0-9]{6}/);
  const code = (await page.getByTestId("room-code").innerText()).trim();
  const teacher = new ConsolePage(page, context);
  await expect(teacher.step()).toHaveAttribute("data-total", "9");
  await expect(page.getByTestId("binding-mode")).toHaveCount(0);
  await expect(page.getByText("volumeBindingMode")).toHaveCount(0);

  const student = await StudentPage.join(browser, code, "Ana");
  await teacher.expectParticipants(1);
  await teacher.next();
  await teacher.next();
  await student.expectStep(3);
  await expect(student.page.getByTestId("step-trail")).toContainText("Taint the node");

  // "What happens next?" from the arrow order: the phone answers it.
  await page.getByTestId("poll-open").click();
  await expect(pollOptions(student)).toHaveCount(4);
  // Never a message the class has already seen.
  await expect(pollOptions(student).filter({ hasText: "Mark the node MemoryPressure" })).toHaveCount(0);
  const right = student.page.getByTestId("poll-option").filter({ hasText: "Kubelet → API server: Evict the lowest-priority Pod" });
  const rightId = (await right.getAttribute("data-option-id"))!;
  await pollOption(student, rightId).click();
  await page.getByTestId("poll-close").click();
  await page.getByTestId("poll-reveal").click();
  await expect(student.page.locator("[data-poll-status=revealed]").first()).toBeVisible();

  // A reload (reconnect) keeps the lesson and the step.
  await student.page.reload();
  await student.expectConnected();
  await student.expectStep(3);
  await expect(student.page.getByTestId("step-trail")).toContainText("Taint the node");

  await page.getByTestId("end-session").click();
  await page.getByTestId("end-session-confirm").click();
  await page.getByTestId("replay-link").click();
  await expect(page).toHaveURL(/\/replay\//);
  await expect(page.getByTestId("sequence-diagram")).toBeVisible();
  await expect(page.getByText("Pod eviction").first()).toBeVisible();
  const sessionId = page.url().split("/replay/")[1].split(/[?#]/)[0];
  const hostKey = await page.evaluate((c) => localStorage.getItem(`classroom:host:${c}`), code);
  const csv = await page.request.get(`/api/sessions/${sessionId}/export?format=csv`, { headers: { "X-Host-Key": hostKey ?? "" } });
  expect(csv.status()).toBe(200);
  expect(await csv.text()).toContain("Evict the lowest-priority Pod");
  await context.close();
  await student.context.close();
});
