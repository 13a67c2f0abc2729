"use client";

import { useTranslations } from "next-intl";
import { KUBE_VERSIONS } from "@/lib/lesson/versions";
import { k8s } from "@/components/i18n/Kube";
import type { HostSnapshot } from "@/lib/session/views";
import { useSend } from "@/components/live/LiveSession";
import { moveWithinGroup } from "./focus";

/**
 * The Kubernetes release the class runs: every screen prints its events,
 * YAML and notes. Arrows only move between the choices; Enter, Space or a
 * click switches, so nothing changes on every screen by accident.
 */
export function VersionSwitch({ snapshot, disabled }: { snapshot: HostSnapshot; disabled?: boolean }) {
  const t = useTranslations("console");
  const classroom = useTranslations("classroom");
  const send = useSend();
  // The oldest and newest releases stand for every release before or after them (KUBE_VERSION_LABELS, in words).
  const label = (v: (typeof KUBE_VERSIONS)[number]) =>
    v === KUBE_VERSIONS[0]
      ? classroom("versionOrOlder", { version: v })
      : v === KUBE_VERSIONS[KUBE_VERSIONS.length - 1]
        ? classroom("versionOrLater", { version: v })
        : v;
  return (
    <section className="rounded-xl border border-slate-700 bg-slate-900/70 p-4" aria-labelledby="version-heading">
      <h2 id="version-heading" className="text-lg font-semibold">
        {t("versionHeading")}
      </h2>
      <p className="mt-1 text-sm text-slate-300">{t.rich("versionLead", { code: (chunks) => <code>{k8s(chunks)}</code> })}</p>
      <div
        className="mt-3 flex flex-wrap gap-2"
        role="group"
        aria-label={t("versionGroup")}
        data-own-keys=""
        onKeyDown={moveWithinGroup}
        data-testid="k8s-version"
        data-version={snapshot.kubeVersion}
      >
        {KUBE_VERSIONS.map((v) => (
          <button
            key={v}
            type="button"
            disabled={disabled}
            aria-pressed={snapshot.kubeVersion === v}
            data-testid="k8s-version-option"
            data-version={v}
            onClick={() => void send("version:set", { version: v })}
            className={`rounded-lg px-3 py-1.5 text-sm font-semibold ${
              snapshot.kubeVersion === v ? "bg-slate-100 text-slate-950" : "border border-slate-600 hover:bg-slate-800"
            }`}
          >
            {label(v)}
          </button>
        ))}
      </div>
    </section>
  );
}
