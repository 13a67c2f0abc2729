import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

type AxePage = ConstructorParameters<typeof AxeBuilder>[0]["page"];

/** axe on the page as it is now: no "serious" or "critical" violation, and the failure names every one. */
export async function expectAccessible(page: Page, state: string) {
  // @axe-core/playwright brings its own playwright-core beside the runner's: same API, different type identity.
  // Legacy mode runs axe in the page itself. The default opens a blank tab in the context for every check (a renderer
  // process of its own), injects axe there as well as in the page, and carries the whole partial result through the
  // runner into it: about a third of the suite's new renderers, for pages with no cross-origin frame to reach. Only
  // violations come back in full (passes and the rest as one node each), so no one serializes every node checked.
  const results = await new AxeBuilder({ page: page as unknown as AxePage })
    .setLegacyMode()
    .options({ resultTypes: ["violations"] })
    .analyze();
  const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const report = bad
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes
          .map((n) => n.target.join(" "))
          .slice(0, 8)
          .join("\n    ")}`,
    )
    .join("\n  ");
  expect(bad, `axe on ${state} (${page.url()}):\n  ${report}`).toEqual([]);
}
