/**
 * Keyboard focus after the control just used has gone (a poll button replaced
 * by the next one, Next disabled at the last step, the session ended): the
 * first of `targets` that can take it gets it. Focus that is somewhere useful
 * (the teacher tabbed on, or used a shortcut elsewhere) is left alone.
 */
export function focusIfLost(...targets: (HTMLElement | null | undefined)[]): void {
  if (typeof document === "undefined") return;
  const active = document.activeElement;
  const lost = !active || active === document.body || !active.isConnected || (active instanceof HTMLButtonElement && active.disabled);
  if (!lost) return;
  for (const target of targets) {
    if (target && target.isConnected && !(target instanceof HTMLButtonElement && target.disabled)) {
      target.focus();
      return;
    }
  }
}

const TYPING = new Set(["INPUT", "TEXTAREA", "SELECT"]);
/** Widgets whose arrow keys move inside them (ARIA's composite roles), and any part of the page that says so. */
const OWNS_ARROWS =
  "[role=tablist],[role=tab],[role=radiogroup],[role=radio],[role=listbox],[role=menu],[role=menubar],[role=slider],[role=grid],[data-own-keys]";

/**
 * Whether a key pressed on `target` is the focused control's own: text in a
 * field, arrows in tabs, a radio group or a list. The console's step
 * shortcuts leave those alone, so typing or moving between tabs never steps
 * the whole class.
 */
export function keyBelongsTo(target: EventTarget | null, key: string): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (TYPING.has(target.tagName) || target.isContentEditable) return true;
  if (key === " " || key === "Enter") {
    // Space and Enter activate the focused control.
    return ["BUTTON", "SUMMARY", "A"].includes(target.tagName) || target.getAttribute("role") !== null;
  }
  return target.closest(OWNS_ARROWS) !== null;
}

/**
 * Arrow keys inside a group of buttons (panel tabs, the projector's choices):
 * focus moves to the previous or next enabled button, Home and End to the
 * ends. The group carries `data-own-keys`, so the arrows never step the class.
 */
export function moveWithinGroup(e: React.KeyboardEvent<HTMLElement>): void {
  const buttons = Array.from(e.currentTarget.querySelectorAll<HTMLButtonElement>("button:not(:disabled)"));
  const active = document.activeElement;
  const at = active instanceof HTMLButtonElement ? buttons.indexOf(active) : -1;
  if (at < 0) return;
  const to =
    e.key === "ArrowRight" || e.key === "ArrowDown"
      ? (at + 1) % buttons.length
      : e.key === "ArrowLeft" || e.key === "ArrowUp"
        ? (at - 1 + buttons.length) % buttons.length
        : e.key === "Home"
          ? 0
          : e.key === "End"
            ? buttons.length - 1
            : null;
  if (to === null) return;
  e.preventDefault();
  buttons[to].focus();
}
