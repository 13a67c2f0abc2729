"use client";

import { useTranslations } from "next-intl";
import { useEffect, useState } from "react";

/**
 * The link students open, as text to copy and as a QR code to scan from the
 * projector or a printed sheet: the address the server says students reach
 * (PUBLIC_URL, or this machine on the classroom network), as a room's join link.
 */
export function AssignmentLink({ id, path, url: given }: { id: string; path: string; url?: string }) {
  const t = useTranslations("assignments");
  const [url, setUrl] = useState("");
  const [qr, setQr] = useState("");
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    const full = given ?? `${window.location.origin}${path}`;
    setUrl(full);
    let live = true;
    void import("qrcode").then((QRCode) =>
      QRCode.toString(full, { type: "svg", margin: 1, errorCorrectionLevel: "M" }).then((svg) => live && setQr(svg)),
    );
    return () => {
      live = false;
    };
  }, [path, given]);
  return (
    <div className="flex flex-wrap items-start gap-5 rounded-xl border border-emerald-700 bg-emerald-950/40 p-4">
      {qr && (
        // The SVG is the qrcode library's output for our own URL: no outside markup reaches it.
        <div className="h-40 w-40 shrink-0 rounded bg-white p-1" aria-hidden="true" dangerouslySetInnerHTML={{ __html: qr }} />
      )}
      <div className="min-w-0 flex-1 space-y-2">
        <p className="font-semibold">{t("giveLink")}</p>
        <a
          href={path}
          data-testid="assignment-link"
          data-assignment-id={id}
          translate="no"
          dir="ltr"
          className="block break-all font-mono text-lg text-sky-200 underline"
        >
          {url || path}
        </a>
        <button
          type="button"
          onClick={() => {
            void navigator.clipboard?.writeText(url).then(() => setCopied(true));
          }}
          className="rounded-lg border border-slate-500 px-3 py-2 font-semibold hover:bg-slate-800"
        >
          {copied ? t("copied") : t("copyLink")}
        </button>
      </div>
    </div>
  );
}
