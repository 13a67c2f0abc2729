import { notFound } from "next/navigation";
import { LAB_SHEETS, LAB_SLUGS, scenarioIdForSlug, type LabCommand } from "@/lib/lesson/lab";
import { labSheetFileName } from "@/lib/lesson/labMarkdown";
import { KUBERNETES_VERSION_STATEMENT } from "@/lib/lesson/card";
import { SCENARIO_IDS } from "@/lib/lesson/kubeCluster";
import { ClusterCheck } from "./ClusterCheck";

/**
 * A scenario's lab sheet: from the diagram to a laptop cluster. Server
 * rendered from lib/lesson/lab.ts; the only client part is "Check my
 * cluster", which parses the student's paste in the browser.
 */

export function generateStaticParams() {
  return SCENARIO_IDS.map((id) => ({ scenario: LAB_SLUGS[id] }));
}

export async function generateMetadata({ params }: { params: Promise<{ scenario: string }> }) {
  const id = scenarioIdForSlug((await params).scenario);
  return { title: id ? `Lab: ${LAB_SHEETS[id].title} · Dynamic provisioning, live` : "Lab" };
}

// Long commands and messages wrap instead of scrolling sideways: the sheet is read on phones.
const CODE =
  "mt-2 whitespace-pre-wrap [overflow-wrap:anywhere] rounded-lg border border-slate-700 bg-slate-950 p-3 font-mono text-[13px] leading-5 text-slate-100";

/**
 * The sheet's sections, in order: each heading is a jump target (an id, and
 * tabIndex -1 so focus lands on it and a screen reader reads from there), and
 * the list at the top links to each. "Check my cluster" is some 7,000 px down
 * on a phone, past every step.
 */
const SECTIONS = {
  limits: "limits",
  install: "install",
  manifests: "manifests",
  setup: "before-step-1",
  steps: "step-by-step",
  check: "check-my-cluster",
  cleanup: "clean-up",
} as const;

// Focus shows where a jump landed (whether the link was clicked or keyed); the margin keeps the heading off the screen's edge.
const TARGET = "scroll-mt-4 rounded focus:outline focus:outline-3 focus:outline-offset-4 focus:outline-amber-300";

function Contents({ reproducible }: { reproducible: string }) {
  const links: [string, string][] = [
    [SECTIONS.limits, `On a laptop: ${reproducible}`],
    [SECTIONS.install, "Cluster and what to install"],
    [SECTIONS.manifests, "Manifests"],
    [SECTIONS.setup, "Before step 1"],
    [SECTIONS.steps, "Step by step"],
    [SECTIONS.check, "Check my cluster"],
    [SECTIONS.cleanup, "Clean up"],
  ];
  return (
    <nav aria-label="On this sheet" className="mt-5 rounded-xl border border-slate-700 bg-slate-900/70 p-3" data-testid="lab-contents">
      <a
        href={`#${SECTIONS.check}`}
        data-testid="lab-jump-check"
        className="inline-block rounded-lg border-2 border-emerald-300 px-4 py-2 font-semibold text-emerald-100 underline-offset-4 hover:underline"
      >
        Jump to Check my cluster ↓
      </a>
      <p className="mt-2 text-sm text-slate-300">Paste your cluster&apos;s events there and see each one on its diagram step.</p>
      <ol className="mt-3 flex flex-wrap gap-x-4 gap-y-2 text-sm">
        {links.map(([id, label]) => (
          <li key={id}>
            <a href={`#${id}`} className="text-sky-300 underline">
              {label}
            </a>
          </li>
        ))}
      </ol>
    </nav>
  );
}

function Commands({ commands }: { commands: LabCommand[] }) {
  return <pre className={CODE}>{commands.map((c) => `# ${c.why}\n${c.run}`).join("\n")}</pre>;
}

export default async function LabPage({ params }: { params: Promise<{ scenario: string }> }) {
  const { scenario: slug } = await params;
  const id = scenarioIdForSlug(slug);
  if (!id) notFound();
  const sheet = LAB_SHEETS[id];

  return (
    <main className="mx-auto max-w-3xl px-4 py-6 [overflow-wrap:anywhere] sm:px-6">
      <nav aria-label="Lab sheets" className="text-sm">
        <ul className="flex flex-wrap gap-x-4 gap-y-2">
          {SCENARIO_IDS.map((other) => (
            <li key={other}>
              <a
                href={`/lab/${LAB_SLUGS[other]}`}
                aria-current={other === id ? "page" : undefined}
                className={other === id ? "font-semibold text-slate-100" : "text-sky-300 underline"}
              >
                {LAB_SHEETS[other].title}
              </a>
            </li>
          ))}
        </ul>
      </nav>

      <header className="mt-6">
        <p className="text-sm font-semibold uppercase tracking-widest text-sky-300">Lab sheet</p>
        <h1 className="mt-1 text-3xl font-bold">{sheet.title}</h1>
        <p className="mt-3 text-slate-200">{sheet.summary}</p>
        <p className="mt-2 text-sm text-slate-400">{KUBERNETES_VERSION_STATEMENT}</p>
        <p className="mt-4">
          <a
            href={`/lab/${sheet.slug}/download`}
            download={labSheetFileName(sheet)}
            data-testid="lab-download"
            className="inline-block rounded-lg bg-sky-400 px-4 py-2 font-semibold text-slate-950"
          >
            Download as Markdown
          </a>
        </p>
        <Contents reproducible={sheet.reproducible === "yes" ? "reproducible" : "partly reproducible"} />
      </header>

      <section aria-labelledby={SECTIONS.limits} className="mt-8" data-testid="lab-limits" data-reproducible={sheet.reproducible}>
        <h2 id={SECTIONS.limits} tabIndex={-1} className={`text-xl font-semibold ${TARGET}`}>
          On a laptop: {sheet.reproducible === "yes" ? "reproducible" : "partly reproducible"}
        </h2>
        <ul className="mt-2 list-disc space-y-2 pl-5 text-slate-200">
          {sheet.limits.map((limit) => (
            <li key={limit}>{limit}</li>
          ))}
        </ul>
      </section>

      <section aria-labelledby={SECTIONS.install} className="mt-8">
        <h2 id={SECTIONS.install} tabIndex={-1} className={`text-xl font-semibold ${TARGET}`}>
          Cluster and what to install
        </h2>
        <p className="mt-2 text-slate-200">
          {sheet.cluster.tool}, cluster <code className="font-mono">{sheet.cluster.name}</code>: {sheet.cluster.nodes}.
        </p>
        {sheet.install.map((item) => (
          <div key={item.what} className="mt-4">
            <h3 className="font-semibold">{item.what}</h3>
            <p className="mt-1 text-slate-300">{item.why}</p>
            <pre className={CODE}>{item.commands.join("\n")}</pre>
          </div>
        ))}
      </section>

      <section aria-labelledby={SECTIONS.manifests} className="mt-8">
        <h2 id={SECTIONS.manifests} tabIndex={-1} className={`text-xl font-semibold ${TARGET}`}>
          Manifests
        </h2>
        {sheet.manifests.map((m) => (
          <div key={m.file} className="mt-4">
            <h3 className="font-mono font-semibold">{m.file}</h3>
            <pre className={CODE} data-testid="lab-manifest" data-file={m.file}>
              {m.yaml}
            </pre>
          </div>
        ))}
      </section>

      <section aria-labelledby={SECTIONS.setup} className="mt-8">
        <h2 id={SECTIONS.setup} tabIndex={-1} className={`text-xl font-semibold ${TARGET}`}>
          Before step 1
        </h2>
        <Commands commands={sheet.setup} />
        <p className="mt-3 text-slate-300">In a second terminal, keep this running:</p>
        <pre className={CODE}>{sheet.watch}</pre>
      </section>

      <section aria-labelledby={SECTIONS.steps} className="mt-8">
        <h2 id={SECTIONS.steps} tabIndex={-1} className={`text-xl font-semibold ${TARGET}`}>
          Step by step
        </h2>
        <ol className="mt-2 space-y-6">
          {sheet.steps.map((step) => (
            <li key={step.position} data-testid="lab-step" data-label={step.label}>
              <h3 className="text-lg font-semibold">
                Step {step.position}: {step.label} {step.title}
              </h3>
              {step.note && <p className="mt-1 text-slate-300">{step.note}</p>}
              {step.run.length > 0 && <Commands commands={step.run} />}
              {step.check.map((check) => (
                <div key={check.command} className="mt-2">
                  <pre className={CODE}>{check.command}</pre>
                  <p className="mt-1 text-slate-200">
                    <span className="font-semibold">Expect:</span> <span className="font-mono">{check.expect}</span>
                  </p>
                </div>
              ))}
              {step.events.length > 0 ? (
                <>
                  <p className="mt-2 text-slate-300">New events (kubectl events: type, reason, object, message):</p>
                  <pre className={CODE}>{step.events.join("\n")}</pre>
                </>
              ) : (
                <p className="mt-2 text-slate-400">No new events.</p>
              )}
            </li>
          ))}
        </ol>
      </section>

      <section aria-labelledby={SECTIONS.check} className="mt-10">
        <h2 id={SECTIONS.check} tabIndex={-1} className={`text-xl font-semibold ${TARGET}`}>
          Check my cluster
        </h2>
        <ClusterCheck scenarioId={id} />
      </section>

      <section aria-labelledby={SECTIONS.cleanup} className="mt-10 mb-10">
        <h2 id={SECTIONS.cleanup} tabIndex={-1} className={`text-xl font-semibold ${TARGET}`}>
          Clean up
        </h2>
        <Commands commands={sheet.cleanup} />
      </section>
    </main>
  );
}
