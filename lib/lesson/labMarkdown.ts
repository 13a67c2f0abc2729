import { KUBERNETES_VERSION_STATEMENT } from "./card";
import type { LabSheet } from "./lab";

/**
 * A lab sheet as one Markdown file: what the lab page offers as a download,
 * for a student to keep next to their terminal. Same content, same order as
 * the page.
 */

const fence = (lang: string, body: string) => ["```" + lang, body, "```"].join("\n");

export function labSheetFileName(sheet: LabSheet): string {
  return `lab-${sheet.slug}.md`;
}

export function labSheetMarkdown(sheet: LabSheet): string {
  const out: string[] = [];
  out.push(`# Lab: ${sheet.title}`, "", sheet.summary, "", KUBERNETES_VERSION_STATEMENT, "");
  out.push(`## Reproducible on a laptop: ${sheet.reproducible === "yes" ? "yes" : "partly"}`, "");
  for (const limit of sheet.limits) out.push(`- ${limit}`);
  out.push(
    "",
    "## Cluster and what to install",
    "",
    `${sheet.cluster.tool}, cluster \`${sheet.cluster.name}\`: ${sheet.cluster.nodes}.`,
    "",
  );
  for (const item of sheet.install) {
    out.push(`### ${item.what}`, "", item.why, "", fence("sh", item.commands.join("\n")), "");
  }
  out.push("## Manifests", "");
  for (const m of sheet.manifests) out.push(`\`${m.file}\``, "", fence("yaml", m.yaml), "");
  out.push("## Before step 1", "", fence("sh", sheet.setup.map((c) => `# ${c.why}\n${c.run}`).join("\n")), "");
  out.push("In a second terminal, keep this running:", "", fence("sh", sheet.watch), "");
  out.push("## Step by step", "");
  for (const step of sheet.steps) {
    out.push(`### Step ${step.position}: ${step.label} ${step.title}`, "");
    if (step.note) out.push(step.note, "");
    if (step.run.length > 0) out.push(fence("sh", step.run.map((c) => `# ${c.why}\n${c.run}`).join("\n")), "");
    for (const check of step.check) out.push(fence("sh", check.command), "", `Expect: ${check.expect}`, "");
    if (step.events.length > 0) {
      out.push("New events (`kubectl events`: TYPE, REASON, OBJECT, MESSAGE):", "", fence("", step.events.join("\n")), "");
    } else {
      out.push("No new events.", "");
    }
  }
  out.push("## Clean up", "", fence("sh", sheet.cleanup.map((c) => `# ${c.why}\n${c.run}`).join("\n")), "");
  return out.join("\n");
}
