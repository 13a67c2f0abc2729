import { expect, test } from "@playwright/test";
import { ConsolePage, ProjectorPage, StudentPage, createSession, jumpTo, openInspector, setMode, closeContextsAfterEach } from "./fixtures";

closeContextsAfterEach();

/**
 * The class runs one Kubernetes release; the teacher says which, and every
 * screen prints that release's strings, live and in the replay.
 */
test("the teacher picks the class's Kubernetes release and every screen prints its strings, replay included", async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const session = await createSession(baseURL!, "Versions");
  const teacher = await ConsolePage.open(browser, session);
  const projector = await ProjectorPage.open(browser, session.code);
  const phone = await StudentPage.join(browser, session.code, "Kim");
  await teacher.expectParticipants(1);

  // A new session prints the newest traced release.
  const control = teacher.page.getByTestId("k8s-version");
  await expect(control).toHaveAttribute("data-version", "1.35");
  for (const view of [projector, phone]) {
    await expect(view.page.getByTestId("k8s-version")).toHaveAttribute("data-version", "1.35");
    await expect(view.page.getByTestId("k8s-version")).toHaveText("as Kubernetes 1.35 or later prints it");
  }

  // MOUNT: the kubelet's container events as 1.35 words them.
  await jumpTo(teacher, 12);
  await phone.expectStep(12);
  await openInspector(phone, "Pod");
  const messages = phone.page.getByTestId("event-message");
  await expect(messages.filter({ hasText: "Container created" }).filter({ visible: true }).first()).toBeVisible();
  await expect(messages.filter({ hasText: "Container started" }).filter({ visible: true }).first()).toBeVisible();
  await expect(messages.filter({ hasText: "Created container" })).toHaveCount(0);

  // The class's cluster is older: one press, and every screen follows (arrows alone change nothing).
  await teacher.page.locator("[data-testid=k8s-version-option][data-version='1.35']").focus();
  await teacher.page.keyboard.press("ArrowLeft");
  await teacher.page.keyboard.press("ArrowLeft");
  await teacher.page.keyboard.press("ArrowLeft");
  await expect(teacher.page.locator("[data-testid=k8s-version-option][data-version='1.32']")).toBeFocused();
  await expect(control).toHaveAttribute("data-version", "1.35");
  await teacher.expectStep(12);
  await teacher.page.keyboard.press("Enter");
  await expect(control).toHaveAttribute("data-version", "1.32");
  for (const view of [projector, phone]) await expect(view.page.getByTestId("k8s-version")).toHaveAttribute("data-version", "1.32");
  await expect(messages.filter({ hasText: "Created container app" }).filter({ visible: true }).first()).toBeVisible();
  await expect(messages.filter({ hasText: "Started container app" }).filter({ visible: true }).first()).toBeVisible();
  await expect(messages.filter({ hasText: "Container created" })).toHaveCount(0);
  // The lab sheet the phone links to is that release's.
  await expect(phone.page.getByTestId("lab-link")).toHaveAttribute("href", /\?k8s=1\.32$/);

  // The zone conflict's FailedScheduling as 1.32 prints it, on the projector's Events.
  await setMode(teacher, "Immediate/zone-conflict");
  await teacher.page.getByTestId("projector-panel-objects").click();
  await teacher.page.locator("[data-testid=projector-object][data-object=events]").click();
  // The last step: the Pod stays Pending with its FailedScheduling.
  await jumpTo(teacher, await teacher.page.getByTestId("step-jump").count());
  const projectorEvents = projector.page.getByTestId("projector-events");
  await expect(projectorEvents).toContainText("node(s) had volume node affinity conflict. preemption:");
  await expect(projectorEvents).not.toContainText("didn't match PersistentVolume's node affinity");
  // 1.35: the new reason, and the DRA plugin's words before "preemption".
  await teacher.page.locator("[data-testid=k8s-version-option][data-version='1.35']").click();
  await expect(projectorEvents).toContainText(
    "2 node(s) didn't match PersistentVolume's node affinity. no new claims to deallocate, preemption:",
  );

  // The replay shows what the class saw at each moment: 1.32 before the switch back, 1.35 after.
  await teacher.page.getByTestId("end-session").click();
  await teacher.page.getByTestId("end-session-confirm").click();
  await teacher.page.getByTestId("replay-link").click();
  await expect(teacher.page.getByTestId("replay-timeline")).toBeVisible();
  await expect(teacher.page.getByTestId("k8s-version")).toHaveAttribute("data-version", "1.35");
  for (const c of [teacher, projector, phone]) await c.context.close();
});
