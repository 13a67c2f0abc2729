import { expect, type BrowserContext, type Page } from "@playwright/test";

/**
 * The pseudo-locale check (docs/i18n.md): in en-XA every letter of every
 * catalog message is accented, so a plain ASCII letter on screen did not come
 * from a catalog, unless it sits inside an element that says it must not be
 * translated (`translate="no"`: Kubernetes strings through <Kube>, a
 * teacher's or student's own words, room codes, a teacher's Mermaid lesson).
 * Accessible names count too: aria-label, placeholder, title and alt.
 */

/** Choose the pseudo-locale for every page of this context (it is chosen only by the switch's cookie). */
export async function usePseudoLocale(context: BrowserContext, host = "127.0.0.1"): Promise<void> {
  await context.addCookies([{ name: "NEXT_LOCALE", value: "en-XA", domain: host, path: "/" }]);
}

/** Visible text (and accessible names) with a plain ASCII letter that is not marked translate="no": each as `where: "text"`. */
export async function unmarkedText(page: Page, selector = "body"): Promise<string[]> {
  return page.evaluate((sel) => {
    const root = document.querySelector(sel);
    if (!root) return [`no ${sel}`];
    const plain = /[A-Za-z]/;
    // A closed <details> shows only its summary: what it folds away is not on screen.
    const folded = (el: Element) => {
      const details = el.closest("details:not([open])");
      return !!details && el.closest("summary")?.parentElement !== details;
    };
    const exempt = (el: Element | null) =>
      !!el && (!!el.closest('[translate="no"], script, style, noscript, template, title') || folded(el));
    const where = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.getAttribute("data-testid") ? `[${el.getAttribute("data-testid")}]` : ""}`;
    const found: string[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = (node.textContent ?? "").trim();
      const parent = node.parentElement;
      if (!text || !plain.test(text) || !parent || exempt(parent)) continue;
      // Hidden text is not read (the screen-reader-only class is visible to checkVisibility).
      if (parent instanceof HTMLElement && !parent.checkVisibility()) continue;
      found.push(`${where(parent)}: "${text.slice(0, 80)}"`);
    }
    for (const el of root.querySelectorAll("[aria-label], [placeholder], [title], img[alt]")) {
      if (exempt(el) || (el instanceof HTMLElement && !el.checkVisibility())) continue;
      for (const attr of ["aria-label", "placeholder", "title", "alt"]) {
        const value = el.getAttribute(attr);
        if (value && plain.test(value)) found.push(`${where(el)}@${attr}: "${value.slice(0, 80)}"`);
      }
    }
    return found;
  }, selector);
}

/** Fails naming every string on the page that did not come from a catalog (with `label` saying which page and state). */
export async function expectAllFromCatalogs(page: Page, label: string, selector = "body"): Promise<void> {
  expect(await unmarkedText(page, selector), `text not from a catalog on ${label}`).toEqual([]);
}
