import { labPath } from "@/lib/lesson/lab";
import type { BindingMode, VariantId } from "@/lib/lesson/types";

/**
 * The way from the diagram to a real cluster: this scenario's lab sheet. Opens in a new
 * tab so a student following the live session does not leave it.
 */
export function LabLink({ mode, variant }: { mode: BindingMode; variant: VariantId }) {
  return (
    <p className="text-slate-300">
      Try it on your own cluster:{" "}
      <a
        href={labPath(mode, variant)}
        target="_blank"
        rel="noopener"
        data-testid="lab-link"
        className="font-semibold text-sky-300 underline"
      >
        lab sheet for this scenario
      </a>{" "}
      <span className="text-slate-400">(opens in a new tab)</span>
    </p>
  );
}
