#!/usr/bin/env node
// First-load JavaScript per route, raw and gzip, from a production Turbopack build.
//
//   npx next build && node scripts/route-sizes.mjs          # table
//   node scripts/route-sizes.mjs --json                     # machine-readable
//
// Next 16 no longer prints sizes. Turbopack builds write
// .next/diagnostics/route-bundle-stats.json: [{ route, firstLoadUncompressedJsBytes,
// firstLoadChunkPaths[] }] (the old "First Load JS" set, uncompressed). This reads it and
// gzips each chunk on its own (level 9, as gzip-size does), then sums per route.
// webpack builds (`next build --webpack`) do not write the file.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const STATS_FILE = ".next/diagnostics/route-bundle-stats.json";

/**
 * @param {string} root project root
 * @returns {null | { route: string, rawBytes: number, gzipBytes: number, chunks: number, missingChunks: string[] }[]}
 *   null when there is no Turbopack build
 */
export function routeSizes(root = ROOT) {
  const file = path.join(root, STATS_FILE);
  if (!existsSync(file)) return null;
  const stats = JSON.parse(readFileSync(file, "utf8"));
  const gzipCache = new Map();
  return stats.map((entry) => {
    let rawBytes = 0;
    let gzipBytes = 0;
    const missingChunks = [];
    for (const chunk of entry.firstLoadChunkPaths ?? []) {
      const full = path.join(root, chunk);
      if (!existsSync(full)) {
        missingChunks.push(chunk);
        continue;
      }
      if (!gzipCache.has(full)) {
        const buf = readFileSync(full);
        gzipCache.set(full, { raw: buf.length, gzip: gzipSync(buf, { level: 9 }).length });
      }
      const sizes = gzipCache.get(full);
      rawBytes += sizes.raw;
      gzipBytes += sizes.gzip;
    }
    return { route: entry.route, rawBytes, gzipBytes, chunks: (entry.firstLoadChunkPaths ?? []).length, missingChunks };
  });
}

const kb = (bytes) => (bytes / 1000).toFixed(1);

function main() {
  const rows = routeSizes(ROOT);
  if (!rows) {
    console.error(`${STATS_FILE} not found: run npm run build first (a Turbopack build; --webpack builds do not write it).`);
    process.exit(1);
  }
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify(rows, null, 2));
    return;
  }
  const width = Math.max(5, ...rows.map((r) => r.route.length));
  console.log(`${"route".padEnd(width)}  ${"raw kB".padStart(7)}  ${"gzip kB".padStart(7)}  chunks`);
  for (const r of rows.sort((a, b) => a.route.localeCompare(b.route))) {
    const warn = r.missingChunks.length ? `  (${r.missingChunks.length} chunk files missing: rebuild)` : "";
    console.log(
      `${r.route.padEnd(width)}  ${kb(r.rawBytes).padStart(7)}  ${kb(r.gzipBytes).padStart(7)}  ${String(r.chunks).padStart(6)}${warn}`,
    );
  }
  console.log("kB = 1000 bytes (as Next used to print); each chunk gzipped at level 9, summed per route.");
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();
