"use client";

import { useEffect, useState } from "react";

/**
 * The link students open, as text to copy and as a QR code to scan from the
 * projector or a printed sheet. Generated in the browser from this page's
 * own address, so it is the address the teacher's students reach too.
 */
export function AssignmentLink({ id, path }: { id: string; path: string }) {
  const [url, setUrl] = useState("");
  const [qr, setQr] = useState("");
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    const full = `${window.location.origin}${path}`;
    setUrl(full);
    let live = true;
    void import("qrcode").then((QRCode) =>
      QRCode.toString(full, { type: "svg", margin: 1, errorCorrectionLevel: "M" }).then((svg) => live && setQr(svg)),
    );
    return () => {
      live = false;
    };
  }, [path]);
  return (
    <div className="flex flex-wrap items-start gap-5 rounded-xl border border-emerald-700 bg-emerald-950/40 p-4">
      {qr && (
        // The SVG is the qrcode library's output for our own URL: no outside markup reaches it.
        <div className="h-40 w-40 shrink-0 rounded bg-white p-1" aria-hidden="true" dangerouslySetInnerHTML={{ __html: qr }} />
      )}
      <div className="min-w-0 flex-1 space-y-2">
        <p className="font-semibold">Give your students this link</p>
        <a
          href={path}
          data-testid="assignment-link"
          data-assignment-id={id}
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
          {copied ? "Copied" : "Copy the link"}
        </button>
      </div>
    </div>
  );
}
