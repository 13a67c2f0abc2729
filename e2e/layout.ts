import { expect, type Page } from "@playwright/test";

/**
 * Measurements on the real page, shared by the layout specs: the rendered
 * size of every visible piece of text (SVG text times its drawing's scale),
 * and whatever spills out of the screen or out of its own box.
 */

/**
 * Waits until the page holds still, so what follows measures the final layout. The drawings are laid out from their
 * boxes' sizes (a ResizeObserver, then React), a frame or two after the box changes: the page has settled once a few
 * animation frames in a row change nothing in the drawings' markup, the boxes' places and sizes, or the scroll
 * positions. CSS animations (the current arrow's) change none of these.
 */
export async function settle(page: Page, quietFrames = 3): Promise<void> {
  await page.evaluate(async (frames) => {
    await document.fonts.ready;
    const look = () => {
      const root = document.documentElement;
      const parts = [`${window.scrollX},${window.scrollY},${root.scrollWidth},${root.scrollHeight}`];
      for (const svg of document.querySelectorAll("svg")) parts.push(`${svg.clientWidth}x${svg.clientHeight}${svg.outerHTML}`);
      for (const el of document.querySelectorAll<HTMLElement>("[data-testid], [role=region], main, section")) {
        parts.push(
          `${el.offsetLeft},${el.offsetTop},${el.offsetWidth},${el.offsetHeight},${el.scrollLeft},${el.scrollTop},${el.getAttribute("style")}`,
        );
      }
      return parts.join("|");
    };
    const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
    let last = look();
    // At most about ten seconds of frames: a page that never holds still is measured as it is, and its checks say so.
    for (let quiet = 0, n = 0; quiet < frames && n < 600; n++) {
      await frame();
      const now = look();
      quiet = now === last ? quiet + 1 : 0;
      last = now;
    }
  }, quietFrames);
}

export interface TextSample {
  text: string;
  px: number;
}

/** Every visible text on the page (or under `selector`), with its rendered font size in CSS px. */
export async function renderedText(page: Page, selector = "body"): Promise<TextSample[]> {
  return page.evaluate((sel) => {
    const root = document.querySelector(sel);
    if (!root) return [];
    const out: { text: string; px: number }[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = (node.textContent ?? "").trim();
      if (!text) continue;
      const el = node.parentElement;
      if (!el || el.closest("title, desc, style, script, noscript, option")) continue;
      if (!el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
      const rect = el.getBoundingClientRect();
      // Screen-reader-only text is clipped to a pixel: not seen, not measured.
      if (rect.width <= 1 || rect.height <= 1) continue;
      const size = parseFloat(getComputedStyle(el).fontSize);
      if (el instanceof SVGElement) {
        const ctm = (el as unknown as SVGGraphicsElement).getScreenCTM?.();
        out.push({ text, px: size * (ctm ? Math.hypot(ctm.a, ctm.b) : 1) });
      } else out.push({ text, px: size });
    }
    return out;
  }, selector);
}

export async function smallestText(page: Page, selector = "body"): Promise<TextSample> {
  const all = await renderedText(page, selector);
  expect(all.length, `text under ${selector}`).toBeGreaterThan(0);
  return all.reduce((a, b) => (b.px < a.px ? b : a));
}

/** Elements whose content is cut off (scrolls or is clipped inside its box) or that reach outside the window. */
export async function cutOff(page: Page, selector = "body"): Promise<string[]> {
  return page.evaluate((sel) => {
    const root = document.querySelector(sel);
    if (!root) return ["no " + sel];
    const problems: string[] = [];
    const name = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}${el.getAttribute("data-testid") ? `[${el.getAttribute("data-testid")}]` : ""} "${(el.textContent ?? "").trim().slice(0, 40)}"`;
    const vw = document.documentElement.clientWidth;
    const vh = document.documentElement.clientHeight;
    for (const el of [root, ...root.querySelectorAll("*")]) {
      if (!(el instanceof HTMLElement || el instanceof SVGElement)) continue;
      if (el.closest("title, desc, defs, marker")) continue;
      if (el instanceof HTMLElement && !el.checkVisibility()) continue;
      const rect = el.getBoundingClientRect();
      if (rect.width <= 1 || rect.height <= 1) continue;
      if (rect.right > vw + 1 || rect.bottom > vh + 1 || rect.left < -1 || rect.top < -1)
        problems.push(`outside the window: ${name(el)} ${JSON.stringify(rect)}`);
      if (el instanceof HTMLElement) {
        const style = getComputedStyle(el);
        if (style.overflowX !== "visible" && el.scrollWidth > el.clientWidth + 1)
          problems.push(`cut off sideways: ${name(el)} ${el.scrollWidth}>${el.clientWidth}`);
        if (style.overflowY !== "visible" && el.scrollHeight > el.clientHeight + 1)
          problems.push(`cut off below: ${name(el)} ${el.scrollHeight}>${el.clientHeight}`);
      }
    }
    // Text in a drawing stays inside the drawing.
    for (const svg of root.querySelectorAll("svg")) {
      const box = svg.getBoundingClientRect();
      for (const t of svg.querySelectorAll("text")) {
        const r = t.getBoundingClientRect();
        if (r.width === 0) continue;
        if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
          problems.push(`outside its drawing: ${name(t)}`);
      }
    }
    return problems;
  }, selector);
}

/** The lifeline heads of a drawing: each text inside its own box. */
export async function headsSpill(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const svg = document.querySelector(sel);
    if (!svg) return ["no " + sel];
    const problems: string[] = [];
    for (const g of svg.querySelectorAll(":scope > g")) {
      const rect = g.querySelector(":scope > rect");
      if (!rect) continue;
      const box = rect.getBoundingClientRect();
      for (const t of g.querySelectorAll(":scope > text")) {
        const r = t.getBoundingClientRect();
        if (r.left < box.left - 1 || r.right > box.right + 1 || r.bottom > box.bottom + 1)
          problems.push(`"${t.textContent}" spills out of its lifeline box`);
      }
    }
    return problems;
  }, selector);
}

/** How far the page reaches past the window sideways (0: nothing to scroll). */
export async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - window.innerWidth);
}
