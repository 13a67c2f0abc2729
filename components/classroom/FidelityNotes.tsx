import { useTranslations } from "next-intl";
import { ARROW_LEGEND, FIDELITY_NOTES, versionLabel, versionNotes } from "@/lib/lesson/card";
import type { KubeVersion } from "@/lib/lesson/versions";
import { ARROW_STYLES } from "@/components/theme";
import { keysOf } from "@/lib/guards";
import { useLessonProse } from "@/components/i18n/useScenario";

/** The card's legend and fidelity notes: reachable from every view. */
export function FidelityNotes({ version }: { version: KubeVersion }) {
  const t = useTranslations("classroom");
  // The card's legend and notes in the reader's language where the lesson is translated, each marked with its own.
  const prose = useLessonProse();
  const legend = (kind: keyof typeof ARROW_LEGEND) => prose.localize(ARROW_LEGEND[kind]);
  return (
    <details className="rounded-xl border border-slate-700 bg-slate-900/60 p-3">
      <summary className="cursor-pointer font-semibold">{t("fidelitySummary")}</summary>
      {/* The legend and the notes are the lesson's own words; the drawing stays left to right. */}
      <ul className="mt-3 grid gap-2 sm:grid-cols-2" aria-label={t("arrowLegend")}>
        {keysOf(ARROW_LEGEND).map((kind) => (
          <li key={kind} className="flex items-center gap-3">
            <svg width="56" height="14" aria-hidden="true" className="shrink-0">
              <line
                x1="2"
                y1="7"
                x2="48"
                y2="7"
                stroke={ARROW_STYLES[kind].stroke}
                strokeWidth={ARROW_STYLES[kind].width}
                strokeDasharray={ARROW_STYLES[kind].dash}
              />
              <path
                d={ARROW_STYLES[kind].head === "open" ? "M44,2 L54,7 L44,12" : "M44,1 L55,7 L44,13 z"}
                fill={ARROW_STYLES[kind].head === "open" ? "none" : ARROW_STYLES[kind].stroke}
                stroke={ARROW_STYLES[kind].stroke}
                strokeWidth="2"
              />
            </svg>
            <span lang={legend(kind).lang}>{legend(kind).text}</span>
          </li>
        ))}
      </ul>
      <FidelityNoteList className="mt-3 list-disc space-y-1 ps-5 text-slate-300" />
      <h3 className="mt-3 font-semibold">{t("otherReleases", { version: versionLabel(version) })}</h3>
      <ul lang="en" className="mt-1 list-disc space-y-1 ps-5 text-slate-300" data-testid="version-notes" data-version={version}>
        {versionNotes(version).map((n) => (
          <li key={n}>{n}</li>
        ))}
      </ul>
    </details>
  );
}

/** How the card simplifies, one item per note, each in the reader's language where the lesson is translated (else marked English). */
export function FidelityNoteList({ className }: { className: string }) {
  const prose = useLessonProse();
  return (
    <ul className={className} data-testid="fidelity-notes">
      {FIDELITY_NOTES.map((n) => {
        const note = prose.localize(n);
        return (
          <li key={n} lang={note.lang}>
            {note.text}
          </li>
        );
      })}
    </ul>
  );
}
