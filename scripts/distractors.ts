// Writes docs/distractors.md from the lesson data: `npm run docs:distractors`.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { renderDistractorTable } from "../lib/polls/distractorTable";

const target = fileURLToPath(new URL("../docs/distractors.md", import.meta.url));
writeFileSync(target, renderDistractorTable());
console.log(`wrote ${target}`);
