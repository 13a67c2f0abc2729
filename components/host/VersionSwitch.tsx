"use client";

import { KUBE_VERSIONS, KUBE_VERSION_LABELS } from "@/lib/lesson/versions";
import type { HostSnapshot } from "@/lib/session/views";
import { useSend } from "@/components/live/LiveSession";
import { moveWithinGroup } from "./focus";

/**
 * The Kubernetes release the class runs: every screen prints its events,
 * YAML and notes. Arrows only move between the choices; Enter, Space or a
 * click switches, so nothing changes on every screen by accident.
 */
export function VersionSwitch({ snapshot, disabled }: { snapshot: HostSnapshot; disabled?: boolean }) {
  const send = useSend();
  return (
    <section className="rounded-xl border border-slate-700 bg-slate-900/70 p-4" aria-labelledby="version-heading">
      <h2 id="version-heading" className="text-lg font-semibold">
        Kubernetes version
      </h2>
      <p className="mt-1 text-sm text-slate-300">
        The release your class&apos;s cluster runs (<code>kubectl version</code>): events and objects read as it prints them.
      </p>
      <div
        className="mt-3 flex flex-wrap gap-2"
        role="group"
        aria-label="Kubernetes version every screen follows"
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
            {KUBE_VERSION_LABELS[v]}
          </button>
        ))}
      </div>
    </section>
  );
}
