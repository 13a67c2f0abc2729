"use client";

import { useTranslations } from "next-intl";
import { useState } from "react";

/** The link to hand out, with a copy button; the key lives in the fragment, so it never reaches a server log. */
export function ShareLink({ url }: { url: string }) {
  const t = useTranslations("savedSessions");
  const [copied, setCopied] = useState(false);
  return (
    <span className="mt-1 flex flex-wrap items-center gap-2">
      <label className="sr-only" htmlFor={`share-${url}`}>
        {t("shareLinkLabel")}
      </label>
      <input
        id={`share-${url}`}
        readOnly
        value={url}
        dir="ltr"
        data-testid="share-link"
        onFocus={(e) => e.currentTarget.select()}
        className="w-64 max-w-full rounded border border-slate-600 bg-slate-950 px-2 py-1 font-mono text-xs"
      />
      <button
        type="button"
        className="text-sky-300 underline"
        onClick={() =>
          navigator.clipboard
            ?.writeText(url)
            .then(() => setCopied(true))
            .catch(() => setCopied(false))
        }
      >
        {copied ? t("copied") : t("copy")}
      </button>
    </span>
  );
}
