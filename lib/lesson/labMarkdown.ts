import type { LabCheck, LabCommand, LabSheet } from "./lab";
import { KUBE_VERSION_LABELS } from "./versions";

/**
 * A lab sheet as one Markdown file: what the lab page offers as a download,
 * for a student to keep next to their terminal. Same content, same order as
 * the page.
 */

const fence = (lang: string, body: string) => ["```" + lang, body, "```"].join("\n");

/** Commands as a shell block: each under a comment saying why, an alternative (Podman) as a comment beneath. */
export function commandBlock(commands: readonly LabCommand[]): string {
  return commands.map((c) => [`# ${c.why}`, c.run, ...(c.or ? [`# ${c.or.when}:`, `# ${c.or.run}`] : [])].join("\n")).join("\n");
}

/** "Expect" and, for a state that passes in seconds, what the same command prints once it has passed. */
export function checkLines(check: LabCheck): string[] {
  const expect = check.expect.includes("\n") ? ["Expect:", "", fence("", check.expect)] : [`Expect: ${check.expect}`];
  if (check.afterwards === undefined) return expect;
  const afterwards = check.afterwards.includes("\n")
    ? ["Typed after the step has passed, it prints:", "", fence("", check.afterwards)]
    : [`Typed after the step has passed, it prints: ${check.afterwards}`];
  return [...expect, "", ...afterwards];
}

export function labSheetFileName(sheet: LabSheet): string {
  return `lab-${sheet.slug}-k8s-${sheet.version}.md`;
}

export function labSheetMarkdown(sheet: LabSheet): string {
  const out: string[] = [];
  out.push(
    `# Lab: ${sheet.title}`,
    "",
    `Kubernetes ${KUBE_VERSION_LABELS[sheet.version]}`,
    "",
    sheet.summary,
    "",
    sheet.versionStatement,
    "",
  );
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
    out.push(`### ${item.what}`, "", item.why, "");
    for (const file of item.files ?? []) out.push(`\`${file.file}\``, "", fence("yaml", file.body), "");
    out.push(fence("sh", item.commands.join("\n")), "");
    if (item.note) out.push(item.note, "");
  }
  out.push("## Manifests", "");
  for (const m of sheet.manifests) out.push(`\`${m.file}\``, "", fence("yaml", m.body), "");
  out.push("## Before step 1", "", fence("sh", commandBlock(sheet.setup)), "");
  out.push(
    "Keep each of these running in a terminal of its own (kubectl watches one resource type per command):",
    "",
    fence("sh", commandBlock(sheet.watch)),
    "",
  );
  out.push(
    "Each step lists the events it adds. Read them with (kubectl events prints a LAST SEEN column first, left out below):",
    "",
    fence("sh", commandBlock(sheet.events)),
    "",
  );
  out.push("## Step by step", "");
  for (const step of sheet.steps) {
    out.push(`### Step ${step.position}: ${step.label} ${step.title}`, "");
    if (step.note) out.push(step.note, "");
    if (step.run.length > 0) out.push(fence("sh", commandBlock(step.run)), "");
    for (const check of step.check) out.push(fence("sh", check.command), "", ...checkLines(check), "");
    if (step.events.length > 0) {
      out.push("New events (`kubectl events`: TYPE, REASON, OBJECT, MESSAGE):", "", fence("", step.events.join("\n")), "");
    } else {
      out.push("No new events.", "");
    }
  }
  out.push("## Clean up", "", fence("sh", commandBlock(sheet.cleanup)), "");
  return out.join("\n");
}
