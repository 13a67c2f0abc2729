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
      </header>

      <section aria-labelledby="limits-heading" className="mt-8" data-testid="lab-limits" data-reproducible={sheet.reproducible}>
        <h2 id="limits-heading" className="text-xl font-semibold">
          On a laptop: {sheet.reproducible === "yes" ? "reproducible" : "partly reproducible"}
        </h2>
        <ul className="mt-2 list-disc space-y-2 pl-5 text-slate-200">
          {sheet.limits.map((limit) => (
            <li key={limit}>{limit}</li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="install-heading" className="mt-8">
        <h2 id="install-heading" className="text-xl font-semibold">
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

      <section aria-labelledby="manifests-heading" className="mt-8">
        <h2 id="manifests-heading" className="text-xl font-semibold">
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

      <section aria-labelledby="setup-heading" className="mt-8">
        <h2 id="setup-heading" className="text-xl font-semibold">
          Before step 1
        </h2>
        <Commands commands={sheet.setup} />
        <p className="mt-3 text-slate-300">In a second terminal, keep this running:</p>
        <pre className={CODE}>{sheet.watch}</pre>
      </section>

      <section aria-labelledby="steps-heading" className="mt-8">
        <h2 id="steps-heading" className="text-xl font-semibold">
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

      <section aria-labelledby="check-heading" className="mt-10">
        <h2 id="check-heading" className="text-xl font-semibold">
          Check my cluster
        </h2>
        <ClusterCheck scenarioId={id} />
      </section>

      <section aria-labelledby="cleanup-heading" className="mt-10 mb-10">
        <h2 id="cleanup-heading" className="text-xl font-semibold">
          Clean up
        </h2>
        <Commands commands={sheet.cleanup} />
      </section>
    </main>
  );
}
