"use client";

import { useLocale, useTranslations } from "next-intl";
import { type ReactNode } from "react";
import { useKubeVersionLabel } from "@/components/assignments/LessonWords";
import { type PastedEvent, type VersionReading } from "@/lib/lesson/clusterCheck";
import { DEFAULT_KUBE_VERSION, isKubeVersion, type KubeVersion } from "@/lib/lesson/versions";

/** The query parameter that picks the sheet's Kubernetes release (the lab page's version switch reads the same one). */
export const VERSION_PARAM = "k8s";
export const SECTION_HASH = "#check-my-cluster";
export const FOCUS = "focus-visible:outline focus-visible:outline-3 focus-visible:outline-offset-2 focus-visible:outline-amber-300";

/** One event as kubectl printed it: Kubernetes's words, left to right and never translated. */
export function EventLine({ event }: { event: PastedEvent }) {
  return (
    <li className={event.type === "Warning" ? "text-rose-200" : "text-slate-100"} translate="no" dir="ltr">
      <span className="font-semibold">{event.reason}</span>
      {event.count > 1 && <span className="text-slate-400"> (×{event.count})</span>}{" "}
      <span className="font-mono text-sm text-slate-400">
        {event.objectKind}/{event.objectName}
      </span>
      <span className="block font-mono text-sm text-slate-300">{event.message}</span>
    </li>
  );
}

/** The check's own English sentences (lib/lesson/clusterCheck.ts): not in any catalog yet, so marked as English. */
export const English = ({ children }: { children: ReactNode }) => <span lang="en">{children}</span>;

/** A quoted Kubernetes string inside a sentence. */
export const kube = (text: string) => (
  <span className="font-mono" translate="no" dir="ltr">
    {text}
  </span>
);

/** The sheet's release as the URL names it; the default when it names none. */
export function versionInUrl(): KubeVersion {
  const named = new URLSearchParams(window.location.search).get(VERSION_PARAM);
  return isKubeVersion(named) ? named : DEFAULT_KUBE_VERSION;
}

/** This sheet, reloaded in another release, landing back on the check. */
export function sheetIn(version: KubeVersion): string {
  const params = new URLSearchParams(typeof window === "undefined" ? "" : window.location.search);
  params.set(VERSION_PARAM, version);
  return `?${params.toString()}${SECTION_HASH}`;
}

export function VersionNote({ reading, onSwitch }: { reading: VersionReading; onSwitch: () => void }) {
  const t = useTranslations("clusterCheck");
  const locale = useLocale();
  const versionLabel = useKubeVersionLabel();
  const releases = new Intl.ListFormat(locale, { type: "disjunction" }).format(reading.fits.map(versionLabel));
  // The clues joined as the page's language joins a list ("A, B and C"): each a quote of the paste, with the releases that print it.
  let next = 0;
  const clues = new Intl.ListFormat(locale, { type: "conjunction" }).formatToParts(reading.clues.map((c) => c.text)).map((part, i) => {
    if (part.type === "literal") return part.value;
    const clue = reading.clues[next++];
    return <span key={i}>{t.rich("clue", { text: () => kube(clue.text), releases: () => <English>{clue.releases}</English> })}</span>;
  });
  if (reading.fits.length === 0) return <p>{t.rich("mixed", { clues: () => clues })}</p>;
  if (reading.matchesSheet) return <p>{t.rich("matches", { releases, clues: () => clues })}</p>;
  return (
    <>
      <p>{t.rich("differs", { releases, sheet: versionLabel(reading.sheet), clues: () => clues })}</p>
      <ul className="mt-2 flex flex-wrap gap-3">
        {reading.fits.map((v) => (
          <li key={v}>
            <a
              href={sheetIn(v)}
              onClick={onSwitch}
              data-testid="cluster-check-switch"
              data-version={v}
              className={`inline-block rounded-lg border-2 border-amber-300 px-3 py-1 font-semibold text-amber-100 underline-offset-4 hover:underline ${FOCUS}`}
            >
              {t("showFor", { version: versionLabel(v) })}
            </a>
          </li>
        ))}
      </ul>
      <p className="mt-1 text-sm text-slate-300">{t("reloads")}</p>
    </>
  );
}
