import { useTranslations } from "next-intl";

/**
 * Shown on phones and the projector while the teacher has paused the class:
 * eyes up front, and votes, questions and upvotes wait until they resume.
 * A status region, so a screen reader says it when it appears.
 */
export function ClassPaused({ paused, large }: { paused: boolean; large?: boolean }) {
  const t = useTranslations("classroom");
  return (
    <div
      role="status"
      aria-live="polite"
      className={large ? "pointer-events-none fixed inset-x-0 bottom-[1.5rem] z-20 flex justify-center" : ""}
    >
      {paused && (
        <p
          data-testid="class-paused"
          className={
            large
              ? "rounded-2xl border-4 border-amber-300 bg-slate-950 px-[2rem] py-[1rem] text-[2.5rem] font-bold text-amber-200 shadow-2xl"
              : "rounded-xl border-2 border-amber-300 bg-slate-900 p-3 text-lg font-semibold text-amber-100"
          }
        >
          {/* Two bars drawn with CSS, not a glyph: no emoji font is needed on a school's projector PC. */}
          <span aria-hidden="true" className="me-[0.5em] inline-flex h-[0.8em] gap-[0.15em] align-baseline">
            <span className="w-[0.22em] rounded-sm bg-current" />
            <span className="w-[0.22em] rounded-sm bg-current" />
          </span>
          {large ? t("pausedLarge") : t("paused")}
        </p>
      )}
    </div>
  );
}
