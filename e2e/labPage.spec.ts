import { expect, test } from "@playwright/test";
import { expectAccessible } from "./axe";
import { closeContextsAfterEach } from "./fixtures";

closeContextsAfterEach();

test("on a phone, the lab sheet's top links straight to Check my cluster and to each section", async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  await page.goto("/lab/wait-for-first-consumer");
  const length = await page.evaluate(() => document.documentElement.scrollHeight);
  expect(length, "the sheet is many screens long (why it needs the links)").toBeGreaterThan(740 * 4);

  // In the first screen, without scrolling: the jump link.
  const jump = page.getByTestId("lab-jump-check");
  await expect(jump).toBeInViewport({ ratio: 1 });
  await expect(jump).toHaveAccessibleName(/Check my cluster/);
  await jump.tap();
  const heading = page.getByRole("heading", { level: 2, name: "Check my cluster" });
  await expect(heading).toBeInViewport();
  await expect(heading).toBeFocused();
  expect(new URL(page.url()).hash).toBe("#check-my-cluster");
  // The keyboard carries on from there: the next stop is the check's first control.
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("Check against")).toBeFocused();

  // From the keyboard too, from the top of a fresh page.
  await page.goto("/lab/wait-for-first-consumer");
  await jump.focus();
  await page.keyboard.press("Enter");
  await expect(heading).toBeFocused();
  await expect(heading).toBeInViewport();

  // Every link in the contents lands on a visible heading that takes focus.
  const contents = page.getByRole("navigation", { name: "On this sheet" });
  const hrefs = await contents.getByRole("link").evaluateAll((links) => links.map((a) => a.getAttribute("href")!));
  expect(hrefs).toContain("#check-my-cluster");
  expect(hrefs.length).toBeGreaterThanOrEqual(7);
  for (const href of new Set(hrefs)) {
    await page.goto("/lab/wait-for-first-consumer");
    await contents.locator(`a[href="${href}"]`).last().click();
    const target = page.locator(href);
    await expect(target).toHaveRole("heading");
    await expect(target).toBeVisible();
    await expect(target).toBeFocused();
    await expect(target).toBeInViewport();
  }
  await expectAccessible(page, "a lab sheet after a jump");
  await context.close();
});

test("the lab sheet is for the Kubernetes version the URL names, switched in place from the keyboard, and its download follows", async ({
  browser,
}) => {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  await page.goto("/lab/immediate-zone-conflict?k8s=1.32");
  const control = page.getByTestId("k8s-version");
  const pickNodeEvents = page.locator("[data-testid=lab-step][data-label='4'] [data-testid=lab-step-events]");
  await expect(control).toHaveAttribute("data-version", "1.32");
  await expect(control.getByRole("link", { name: "1.32 or older" })).toHaveAttribute("aria-current", "page");
  // kind's three nodes in 1.32's wording: the old PV reason, the taint by name, no DRA tail.
  await expect(pickNodeEvents).toHaveText(
    "Warning  FailedScheduling  Pod/app  0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 1 node(s) had volume node affinity conflict. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
  );
  await expect(page.getByTestId("lab-install-commands").first()).toContainText(
    "kind create cluster --name pv-lab-zones --image kindest/node:v1.32.11@sha256:5fc52d52a7b9574015299724bd68f183702956aa4a2116ae75a63cb574b35af8 --config kind-3-nodes.yaml",
  );
  await expect(page.getByTestId("lab-download")).toHaveAttribute("href", "/lab/immediate-zone-conflict/download?k8s=1.32");
  // The other sheets keep the release.
  await expect(page.getByRole("navigation", { name: "Lab sheets" }).getByRole("link", { name: "Local PVs", exact: true })).toHaveAttribute(
    "href",
    "/lab/local?k8s=1.32",
  );
  // Each step: its place in the mode's order and the card's number.
  expect(
    await page
      .getByTestId("lab-step")
      .evaluateAll((steps) => steps.map((s) => `${s.getAttribute("data-step")}:${s.getAttribute("data-label")}`)),
  ).toEqual(["1:1", "2:6", "3:7", "4:8", "5:9", "6:2", "7:3", "8:4"]);
  // One resource type per watch; the DaemonSet's Pods by label.
  await expect(page.getByTestId("lab-watch")).toHaveText(/kubectl get pvc -w\n.*\nkubectl get pv -w\n.*\nkubectl get pod -o wide -w/);
  await expect(page.locator("main")).not.toContainText("pvc,pv,pod");
  await expect(page.locator("main")).not.toContainText("csi-hostpathplugin-0");

  // From the keyboard: the newest release, in place, the choice in the URL, focus where it was.
  const latest = control.getByRole("link", { name: "1.35 or later" });
  await latest.focus();
  await page.keyboard.press("Enter");
  await expect(control).toHaveAttribute("data-version", "1.35");
  await expect(latest).toHaveAttribute("aria-current", "page");
  await expect(latest).toBeFocused();
  expect(new URL(page.url()).search).toBe("");
  await expect(page.getByTestId("k8s-version-status")).toHaveText("This sheet shows Kubernetes 1.35 or later.");
  await expect(pickNodeEvents).toContainText(
    "1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/3 nodes are available",
  );
  await expect(page.getByTestId("lab-download")).toHaveAttribute("href", "/lab/immediate-zone-conflict/download?k8s=1.35");
  await expectAccessible(page, "a lab sheet after switching its Kubernetes version");

  // A tap switches too, and a reload keeps the release the URL names.
  await control.getByRole("link", { name: "1.34" }).tap();
  await expect(control).toHaveAttribute("data-version", "1.34");
  expect(new URL(page.url()).searchParams.get("k8s")).toBe("1.34");
  await page.reload();
  await expect(control).toHaveAttribute("data-version", "1.34");
  await expect(page.getByTestId("lab-version-statement")).toContainText("on a kind v0.31.0 cluster of Kubernetes v1.34.3.");

  // The download is that release's sheet.
  const download = await page.request.get("/lab/immediate-zone-conflict/download?k8s=1.32");
  expect(download.headers()["content-disposition"]).toContain('filename="lab-immediate-zone-conflict-k8s-1.32.md"');
  expect(await download.text()).toContain("1 node(s) had volume node affinity conflict. preemption: 0/3 nodes are available");

  // A release the lesson does not trace shows the default sheet.
  await page.goto("/lab/local?k8s=9.99");
  await expect(control).toHaveAttribute("data-version", "1.35");
  await context.close();
});
