"use client";

import { useState, type ReactNode } from "react";
import { useTranslations } from "next-intl";

/** Keys with which a closed select changes its value in Chromium (and fires `change`) without opening. */
const BROWSING_KEYS = new Set(["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End", "PageUp", "PageDown"]);

/**
 * A select for a setting that changes every student's screen: a choice made
 * with the mouse (or from the opened list) applies at once, but browsing it
 * with the arrow keys only chooses, and Enter applies; leaving it unapplied
 * puts the room's value back. Chromium fires `change` on each arrow press
 * of a closed select, which would otherwise switch the class on every key.
 */
export function DeliberateSelect<T extends string>({
  value,
  options,
  onApply,
  testId,
  disabled,
  className,
  children,
}: {
  value: T;
  options: readonly T[];
  onApply: (value: T) => void;
  testId: string;
  disabled?: boolean;
  className?: string;
  /** The options, as <option> elements. */
  children: ReactNode;
}) {
  const t = useTranslations("console");
  const [pending, setPending] = useState<T | null>(null);
  const [browsing, setBrowsing] = useState(false);
  const shown = pending ?? value;
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      <select
        data-testid={testId}
        value={shown}
        disabled={disabled}
        aria-describedby={pending !== null ? `${testId}-pending` : undefined}
        onKeyDown={(e) => {
          if (BROWSING_KEYS.has(e.key) || e.key.length === 1) setBrowsing(true);
          if (e.key === "Enter" && pending !== null) {
            e.preventDefault();
            onApply(pending);
            setPending(null);
          }
          if (e.key === "Escape" && pending !== null) {
            e.preventDefault();
            setPending(null);
          }
        }}
        onKeyUp={() => setBrowsing(false)}
        onBlur={() => setPending(null)}
        onChange={(e) => {
          const chosen = options.find((o) => o === e.target.value);
          if (!chosen) return;
          if (browsing) {
            setPending(chosen === value ? null : chosen);
            return;
          }
          setPending(null);
          if (chosen !== value) onApply(chosen);
        }}
        className={className}
      >
        {children}
      </select>
      {pending !== null && (
        <span id={`${testId}-pending`} data-testid={`${testId}-pending`} className="text-xs text-amber-200" role="status">
          {t("enterToApply")}
        </span>
      )}
    </span>
  );
}
