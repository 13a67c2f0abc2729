import { useTranslations } from "next-intl";
import { labPath } from "@/lib/lesson/lab";
import type { BindingMode, VariantId } from "@/lib/lesson/types";
import type { KubeVersion } from "@/lib/lesson/versions";

/**
 * The way from the diagram to a real cluster: this scenario's lab sheet. Opens in a new
 * tab so a student following the live session does not leave it.
 */
export function LabLink({ mode, variant, version }: { mode: BindingMode; variant: VariantId; version: KubeVersion }) {
  const t = useTranslations("classroom");
  return (
    <p className="text-slate-300">
      {t.rich("labLead", {
        lab: (chunks) => (
          <a
            // The sheet in the release the class runs, so its commands' output reads as their cluster prints it.
            href={labPath(mode, variant, version)}
            target="_blank"
            rel="noopener"
            data-testid="lab-link"
            className="font-semibold text-sky-300 underline"
          >
            {chunks}
          </a>
        ),
        hint: (chunks) => <span className="text-slate-400">{chunks}</span>,
      })}
    </p>
  );
}
