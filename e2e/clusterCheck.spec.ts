import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { expectAccessible } from "./axe";
import { closeContextsAfterEach } from "./fixtures";

// Playwright runs from the repository root (playwright.config.ts lives there).
const fixture = (name: string) => readFileSync(path.join(process.cwd(), "lib/lesson/fixtures", name), "utf8");
const paste = (name: string) => fixture(`clusterCheck/${name}`);

closeContextsAfterEach();

// What `kubectl events` prints when every node lacks CPU: a real failure, but not the lesson's zone conflict.
const INSUFFICIENT_CPU = `[ana@laptop pv-lab]$ kubectl events
LAST SEEN            TYPE      REASON                  OBJECT                       MESSAGE
2m10s                Normal    ExternalProvisioning    PersistentVolumeClaim/data   Waiting for a volume to be created either by the external provisioner 'hostpath.csi.k8s.io' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.
2m10s                Normal    Provisioning            PersistentVolumeClaim/data   External provisioner is provisioning volume for claim "default/data"
2m9s                 Normal    ProvisioningSucceeded   PersistentVolumeClaim/data   Successfully provisioned volume pvc-7d2e9a41-3c5b-4f8e-a06d-1b9c8e2f4a75
30s (x3 over 2m)     Warning   FailedScheduling        Pod/app                      0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.
`;

test("an Insufficient cpu failure pasted on the zone-conflict sheet is called a different failure, not the lesson's", async ({
  browser,
}) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  const page = await context.newPage();
  await page.goto("/lab/immediate-zone-conflict#check-my-cluster");

  await page.getByTestId("cluster-check-input").fill(INSUFFICIENT_CPU);
  await page.getByTestId("cluster-check-run").click();

  const status = page.getByTestId("cluster-check-status");
  await expect(status).toHaveText("3 events placed on the diagram; 1 different failure, 1 missing.");
  const different = page.getByTestId("cluster-check-different");
  await expect(different.getByRole("heading", { name: "A different failure" })).toBeVisible();
  await expect(different).toContainText("not for the reason this scenario shows (“node(s) didn't match PersistentVolume's node affinity”)");
  await expect(different).toContainText(
    "3 Insufficient cpu: these nodes lack the free cpu the Pod requests: a capacity problem, not a storage one.",
  );
  // PICK NODE (label 4) gets nothing: the failure is not placed there as if it were the zone conflict.
  await expect(page.locator("[data-testid=cluster-check-step][data-label='4']")).toHaveAttribute("data-count", "0");
  await expect(page.getByTestId("cluster-check-missing")).toContainText("Your Pod failed to schedule for another reason");
  await expectAccessible(page, "a different failure");
});

test("a 1.32 paste on a 1.35 sheet offers the 1.32 sheet, and following it checks the same paste again there", async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto("/lab/immediate-zone-conflict?k8s=1.35#check-my-cluster");
  const check = page.getByTestId("cluster-check");
  await expect(check).toHaveAttribute("data-version", "1.35");

  const input = page.getByTestId("cluster-check-input");
  // kubectl get events -o json from a 1.32 cluster, with the bracketed prompt it was typed at.
  const pasted = `[ana@laptop pv-lab]$ kubectl get events -o json\n${fixture("zone-conflict-1.32-kubectl-get-events.json")}`;
  await input.fill(pasted);
  await page.getByTestId("cluster-check-run").focus();
  await page.keyboard.press("Enter");

  const version = page.getByTestId("cluster-check-version");
  await expect(version).toHaveAttribute("data-matches", "false");
  await expect(version).toContainText("Your cluster prints “node(s) had volume node affinity conflict” (1.32 or older)");
  await expect(version).toContainText("that is Kubernetes 1.32 or older. This sheet shows Kubernetes 1.35 or later");
  await expectAccessible(page, "the offer to switch releases");

  // The offer is a link: focused and followed with the keyboard.
  const offer = page.getByTestId("cluster-check-switch");
  await expect(offer).toHaveCount(1);
  await expect(offer).toHaveAttribute("data-version", "1.32");
  await offer.focus();
  await page.keyboard.press("Enter");

  await page.waitForURL((url) => url.searchParams.get("k8s") === "1.32");
  expect(new URL(page.url()).hash).toBe("#check-my-cluster");
  await expect(check).toHaveAttribute("data-version", "1.32");
  await expect(input).toHaveValue(pasted);
  await expect(page.getByTestId("cluster-check-status")).toHaveText(
    "All 4 events of the lab's PVC and Pod are on their steps, in order, and nothing the Immediate: zone conflict scenario expects is missing.",
  );
  await expect(version).toHaveAttribute("data-matches", "true");
  await expect(version).toContainText("the release this sheet shows");
  await expect(page.getByTestId("cluster-check-switch")).toHaveCount(0);

  // The carried paste was read once: a reload starts empty.
  await page.reload();
  await expect(input).toHaveValue("");
});

test("a paste over 512 KiB is refused before it is read, with what to copy instead", async ({ page }) => {
  await page.goto("/lab/wait-for-first-consumer#check-my-cluster");
  const input = page.getByTestId("cluster-check-input");
  await input.fill(`${paste("wffc-1.35-kubectl-events.txt")}${"x".repeat(600 * 1024)}`);
  await expect(page.getByTestId("cluster-check-status")).toHaveText(
    /^Not pasted\. This paste is 602 KiB; the check reads at most 512 KiB\./,
  );
  await expect(input).toHaveValue("");

  await input.fill(paste("wffc-1.35-kubectl-events.txt"));
  await page.getByTestId("cluster-check-run").click();
  await expect(page.getByTestId("cluster-check-status")).toHaveText(
    "All 9 events of the lab's PVC and Pod are on their steps and nothing the WaitForFirstConsumer scenario expects is missing.",
  );
});
