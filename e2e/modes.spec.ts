import { expect, test } from "@playwright/test";
import {
  ConsolePage,
  ProjectorPage,
  StudentPage,
  createSession,
  expectMode,
  expectMoment,
  jumpTo,
  openInspector,
  setMode,
  closeContextsAfterEach,
} from "./fixtures";

closeContextsAfterEach();

const SELECTED_NODE = "volume.kubernetes.io/selected-node: node-b1";
const ZONE_CONFLICT_MESSAGE =
  // As 1.35 (a new session's default release) prints it: the DRA plugin's "no new claims to deallocate" comes first.
  "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) didn't match PersistentVolume's node affinity. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";

test("the three binding modes: every view switches together and keeps its moment", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!, "Binding modes");
  const teacher = await ConsolePage.open(browser, session);
  const projector = await ProjectorPage.open(browser, session.code);
  const students = [await StudentPage.join(browser, session.code, "Ana"), await StudentPage.join(browser, session.code, "Bo")];
  const views = [teacher, projector, ...students];
  await teacher.expectParticipants(2);
  for (const view of views) await expectMode(view, "WaitForFirstConsumer");

  // WaitForFirstConsumer, step 4: the PVC carries no selected-node yet.
  await jumpTo(teacher, 4);
  for (const view of views) await expectMoment(view, 4, 4);
  const studentYaml = await openInspector(students[0]);
  await expect(studentYaml).toContainText("kind: PersistentVolumeClaim");
  await expect(studentYaml).not.toContainText("selected-node");
  await expect(studentYaml.locator("mark[data-changed]").filter({ hasText: "selected-node" })).toHaveCount(0);

  // Step 5 NODE CHOSEN: the scheduler's one write shows up as a changed line.
  await teacher.next();
  for (const view of views) await expectMoment(view, 5, 5);
  await expect(students[0].step()).toContainText("NODE CHOSEN");
  await expect(studentYaml.locator("mark[data-changed]").filter({ hasText: SELECTED_NODE })).toHaveCount(1);

  // Switch to Immediate mid-lesson: same moment (card step 5), which is step 9 of 12 there.
  await setMode(teacher, "Immediate/standard");
  for (const view of views) {
    await expectMode(view, "Immediate");
    await expectMoment(view, 9, 5);
    await expect(view.step()).toHaveAttribute("data-total", "12");
    await expect(view.page.getByTestId("mode-switch-moment")).toHaveText(
      "Switched from WaitForFirstConsumer to Immediate, at the same moment: step 9, NODE CHOSEN (card step 5).",
    );
  }
  await expect(students[1].step()).toContainText("NODE CHOSEN");
  // The student's open inspector follows: in Immediate the PVC was bound long before, no selected-node.
  await expect(studentYaml).toHaveAttribute("data-kind", "PersistentVolumeClaim");
  await expect(studentYaml).not.toContainText("selected-node");

  // Walk every Immediate step on the console: the PVC never gets selected-node.
  const consoleYaml = await openInspector(teacher);
  for (let step = 1; step <= 12; step++) {
    await jumpTo(teacher, step);
    await expect(consoleYaml).toHaveAttribute("data-kind", "PersistentVolumeClaim");
    await expect(consoleYaml).toContainText("kind: PersistentVolumeClaim");
    await expect(consoleYaml, `Immediate step ${step}`).not.toContainText("selected-node");
  }

  // A moment the other mode lacks: CREATE DISK (card step 7) does not exist for local PVs.
  await jumpTo(teacher, 3);
  await expectMoment(teacher, 3, 7);
  await expect(teacher.step()).toContainText("CREATE DISK");
  await setMode(teacher, "Local/standard");
  for (const view of views) {
    await expectMode(view, "Local");
    await expectMoment(view, 1, 1);
    await expect(view.page.getByTestId("mode-switch-notice")).toContainText("It has no CREATE DISK step, so it starts from the beginning.");
  }

  // Immediate's zone-conflict variant: the Pod stays Pending with the scheduler's exact message.
  await setMode(teacher, "Immediate/zone-conflict");
  for (const view of views) {
    await expectMode(view, "Immediate");
    await expect(view.page.getByTestId("binding-mode")).toHaveAttribute("data-variant", "zone-conflict");
    await expectMoment(view, 1, 1);
  }
  await teacher.page.locator("body").press("End");
  for (const view of views) {
    await expect(view.step()).toHaveAttribute("data-total", "8");
    await expectMoment(view, 8, 4);
  }
  const failed = teacher.page.locator("[data-testid=events-table] tr[data-reason=FailedScheduling] [data-testid=event-message]");
  await expect(failed).toHaveText(ZONE_CONFLICT_MESSAGE);
  await expect(
    students[0].page.locator("[data-testid=events-table] tr[data-reason=FailedScheduling] [data-testid=event-message]"),
  ).toHaveText(ZONE_CONFLICT_MESSAGE);
  await teacher.page.getByTestId("panel-topology").click();
  await expect(teacher.page.getByTestId("topology")).toHaveAttribute("data-mismatch", "true");
  await expect(teacher.page.getByTestId("zone-mismatch")).toBeVisible();

  // The projector compares the two modes side by side and says where they part.
  await expect(projector.page.getByTestId("compare-view")).toHaveCount(0);
  await teacher.page.getByTestId("projector-panel-compare").click();
  await expect(teacher.page.getByTestId("projector-panel-compare")).toHaveAttribute("aria-pressed", "true");
  await expect(projector.page.getByTestId("projector-panel")).toHaveAttribute("data-panel", "compare");
  const compare = projector.page.getByTestId("compare-view");
  await expect(compare).toBeVisible();
  await expect(compare).toContainText("WaitForFirstConsumer vs Immediate: zone conflict");
  await expect(compare.locator("tr[data-diverges]")).toHaveCount(1);
  const divergence = projector.page.getByTestId("compare-divergence");
  await expect(divergence).toContainText(/They part at moment \d+\./);
  await expect(divergence).toContainText("In Immediate the disk is created and bound right after the PVC, before any Pod exists");
  await expect(divergence).toContainText("scheduling fails");
});
