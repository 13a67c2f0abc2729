"use client";

import dynamic from "next/dynamic";
import { useState } from "react";
import { useTranslations } from "next-intl";
import type { Scenario } from "@/lib/lesson/types";

/**
 * The lesson panels carry the whole Kubernetes object model (YAML, events,
 * topology, comparison); they load on first use so a phone joining the class
 * downloads only what shows the current step.
 */
function Loading() {
  const t = useTranslations("panels");
  return (
    <p className="text-slate-400" role="status">
      {t("loading")}
    </p>
  );
}
const loading = () => <Loading />;

export const LessonPanels = dynamic(() => import("./LessonPanels").then((m) => m.LessonPanels), { ssr: false, loading });
export const PanelBody = dynamic(() => import("./LessonPanels").then((m) => m.PanelBody), { ssr: false, loading });

/** On a phone the panels fold away; they load when the student opens them. */
export function StudentLessonPanels({ scenario, stepIndex }: { scenario: Scenario; stepIndex: number }) {
  const t = useTranslations("panels");
  const [open, setOpen] = useState(false);
  return (
    <details
      className="rounded-xl border border-slate-700 bg-slate-900/60 p-3"
      data-testid="lesson-panels"
      onToggle={(e) => setOpen(e.currentTarget.open)}
    >
      <summary className="cursor-pointer text-lg font-semibold">{t("inspect")}</summary>
      <div className="mt-3">{open && <LessonPanels scenario={scenario} stepIndex={stepIndex} audience="student" />}</div>
    </details>
  );
}
