import fs from "node:fs";
import path from "node:path";
import { lessonProseSources } from "../lib/polls/proseSources";
import { messageText, tagKube } from "../lib/lesson/proseTagger";
import { POLL_NAMESPACE, PROSE_NAMESPACE } from "../lib/lesson/proseKey";

/**
 * Writes messages/lesson/en.json from the lesson itself (lib/lesson/scenarios.ts,
 * lib/lesson/card.ts, lib/polls): one message per prose string, keyed by
 * proseKey(English), Kubernetes strings tagged <k8s>. A message whose English is
 * unchanged keeps its markup (a person may have moved a tag); a new sentence is
 * tagged automatically; a sentence the lesson no longer says is dropped, and so
 * are its translations' keys in every other language (their text is stale).
 * The poll templates (lessonPoll) are written by hand and kept.
 *
 *   node --import tsx scripts/lessonCatalog.ts
 */

type Area = Record<string, Record<string, string>>;
const DIR = path.resolve(import.meta.dirname, "../messages/lesson");
const read = (locale: string): Area => JSON.parse(fs.readFileSync(path.join(DIR, `${locale}.json`), "utf8")) as Area;
const write = (locale: string, area: Area) => fs.writeFileSync(path.join(DIR, `${locale}.json`), `${JSON.stringify(area, null, 2)}\n`);

const english = read("en");
const old = english[PROSE_NAMESPACE] ?? {};
const prose: Record<string, string> = {};
let added = 0;
for (const [key, text] of lessonProseSources()) {
  const kept = old[key] !== undefined && messageText(old[key]) === text ? old[key] : undefined;
  if (!kept) added++;
  prose[key] = kept ?? tagKube(text);
}
write("en", { [POLL_NAMESPACE]: english[POLL_NAMESPACE] ?? {}, [PROSE_NAMESPACE]: prose });

let dropped = 0;
for (const file of fs.readdirSync(DIR)) {
  const locale = file.replace(/\.json$/, "");
  if (locale === "en") continue;
  const area = read(locale);
  const theirs = area[PROSE_NAMESPACE];
  if (!theirs) continue;
  for (const key of Object.keys(theirs))
    if (!(key in prose)) {
      delete theirs[key];
      dropped++;
    }
  write(locale, area);
}
console.log(`messages/lesson/en.json: ${Object.keys(prose).length} prose strings (${added} new); ${dropped} stale translations dropped`);
