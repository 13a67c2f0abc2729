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
