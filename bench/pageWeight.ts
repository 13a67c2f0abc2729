import path from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./processes";

interface RouteSize {
  route: string;
  rawBytes: number;
  gzipBytes: number;
  chunks: number;
  missingChunks: string[];
}

/**
 * First-load JS of the student page: what the join form needs before a phone
 * can type its name. The live screen (components/student/StudentLive.tsx)
 * is a chunk of its own, fetched as soon as the form is up, so it is not in
 * this figure.
 */
export interface PageWeight {
  route: string;
  rawBytes: number;
  gzipBytes: number;
  note: string | null;
}

/** From the production build's route stats (scripts/route-sizes.mjs); null without a Turbopack build. */
export async function pageWeight(): Promise<PageWeight | null> {
  const mod = (await import(pathToFileURL(path.join(ROOT, "scripts/route-sizes.mjs")).href)) as {
    routeSizes(root: string): RouteSize[] | null;
  };
  const rows = mod.routeSizes(ROOT);
  if (!rows) return null;
  const row = rows.find((r) => r.route === "/join/[code]");
  if (!row) return { route: "/join/[code]", rawBytes: NaN, gzipBytes: NaN, note: "route not in route-bundle-stats.json" };
  const note = row.missingChunks.length ? `${row.missingChunks.length} chunk files missing: rebuild` : null;
  return { route: row.route, rawBytes: row.rawBytes, gzipBytes: row.gzipBytes, note };
}
