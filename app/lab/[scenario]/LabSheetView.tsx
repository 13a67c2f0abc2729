"use client";

import { useTranslations } from "next-intl";
import { useKubeVersionLabel } from "@/components/assignments/LessonWords";
import { useLessonProse } from "@/components/i18n/useScenario";
import type { Localized } from "@/lib/lesson/localize";
import { LAB_VERSION_PARAM, type LabCheck, type LabSheet } from "@/lib/lesson/lab";
import { commandBlock, labSheetFileName } from "@/lib/lesson/labMarkdown";
import type { ScenarioId } from "@/lib/lesson/kubeCluster";
import { KUBE_VERSIONS, type KubeVersion } from "@/lib/lesson/versions";
import { k8s } from "@/components/i18n/Kube";
import { LanguageSwitch } from "@/components/i18n/LanguageSwitch";
import { ClusterCheck } from "./ClusterCheck";
import { sheetHref, switchInPlace, useLabVersion, useUrlRead } from "./labVersion";

/**
 * The lab sheet itself, for one Kubernetes release. The page is static and
 * hands over the sheet of every release; the browser shows the one the URL
 * names (?k8s=1.32), and the version links switch it in place, keeping the
 * choice in the URL. The server's HTML (and a browser without JavaScript)
 * shows the default release.
 */

type Sheets = Readonly<Record<KubeVersion, LabSheet>>;
type Titles = readonly { id: ScenarioId; slug: string; title: string }[];

// Long commands and messages wrap instead of scrolling sideways: the sheet is read on phones.
const CODE =
  "mt-2 whitespace-pre-wrap [overflow-wrap:anywhere] rounded-lg border border-slate-700 bg-slate-950 p-3 font-mono text-[13px] leading-5 text-slate-100";
const FOCUS = "focus-visible:outline focus-visible:outline-3 focus-visible:outline-offset-2 focus-visible:outline-amber-300";

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

/**
 * The sheet's own sentences (lib/lesson/lab.ts): the lesson catalog's where it has them, else English, marked
 * lang="en"; `data-lesson-words` says they are the lesson's, not the interface's (as on the teacher's pages).
 */
function Prose({ words }: { words: Localized }) {
  return (
    <span lang={words.lang} data-lesson-words>
      {words.text}
    </span>
  );
}

/** A command, a manifest, kubectl's output: Kubernetes as it prints it, never translated, always left to right. */
const KUBE_BLOCK = { translate: "no", dir: "ltr" } as const;

function Contents({ reproducible }: { reproducible: "yes" | "partly" }) {
  const t = useTranslations("lab");
  const links: [string, string][] = [
    [SECTIONS.limits, t("onLaptop", { reproducible })],
    [SECTIONS.install, t("install")],
    [SECTIONS.manifests, t("manifests")],
    [SECTIONS.setup, t("setup")],
    [SECTIONS.steps, t("steps")],
    [SECTIONS.check, t("check")],
    [SECTIONS.cleanup, t("cleanup")],
  ];
  return (
    <nav aria-label={t("contents")} className="mt-5 rounded-xl border border-slate-700 bg-slate-900/70 p-3" data-testid="lab-contents">
      <a
        href={`#${SECTIONS.check}`}
        data-testid="lab-jump-check"
        className="inline-block rounded-lg border-2 border-emerald-300 px-4 py-2 font-semibold text-emerald-100 underline-offset-4 hover:underline"
      >
        {t("jumpToCheck")}
      </a>
      <p className="mt-2 text-sm text-slate-300">{t("jumpLead")}</p>
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

/** Which release the sheet is for: links that keep the reader on this sheet, the choice kept in the URL. */
function VersionSwitch({ slug, version }: { slug: string; version: KubeVersion }) {
  const t = useTranslations("lab");
  const versionLabel = useKubeVersionLabel();
  return (
    <nav aria-labelledby="k8s-version-label" className="mt-4" data-testid="k8s-version" data-version={version}>
      <p id="k8s-version-label" className="text-sm font-semibold text-slate-200">
        {t("versionOfCluster")}
      </p>
      <ul className="mt-2 flex flex-wrap gap-2">
        {KUBE_VERSIONS.map((v) => (
          <li key={v}>
            <a
              href={sheetHref(slug, v)}
              onClick={switchInPlace}
              aria-current={v === version ? "page" : undefined}
              data-version={v}
              className={`inline-block rounded-lg border-2 px-3 py-1 text-sm font-semibold ${FOCUS} ${
                v === version
                  ? "border-sky-300 bg-sky-300 text-slate-950"
                  : "border-slate-500 text-slate-100 underline-offset-4 hover:underline"
              }`}
            >
              {versionLabel(v)}
            </a>
          </li>
        ))}
      </ul>
      <p className="sr-only" role="status" data-testid="k8s-version-status">
        {t("versionShown", { version: versionLabel(version) })}
      </p>
    </nav>
  );
}

function Check({ check }: { check: LabCheck }) {
  const t = useTranslations("lab");
  const block = (text: string) => (
    <pre className={CODE} {...KUBE_BLOCK}>
      {text}
    </pre>
  );
  const inline = (text: string) => (
    <span className="font-mono" {...KUBE_BLOCK}>
      {text}
    </span>
  );
  return (
    <div className="mt-2" data-testid="lab-check">
      {block(check.command)}
      {check.expect.includes("\n") ? (
        <>
          <p className="mt-1 font-semibold text-slate-200">{t("expect")}</p>
          {block(check.expect)}
        </>
      ) : (
        <p className="mt-1 text-slate-200">
          <span className="font-semibold">{t("expect")}</span> {inline(check.expect)}
        </p>
      )}
      {check.afterwards !== undefined && (
        <div className="mt-1 border-s-2 border-amber-300/70 ps-3 text-slate-300" data-testid="lab-check-afterwards">
          <p>{t("afterwards", { block: check.afterwards.includes("\n") ? "yes" : "no" })}</p>
          {check.afterwards.includes("\n") ? (
            block(check.afterwards)
          ) : (
            <p className="font-mono text-slate-100" {...KUBE_BLOCK}>
              {check.afterwards}
            </p>
          )}
        </div>
      )}
    </div>
  );
}

export function LabSheetView({ sheets, titles }: { sheets: Sheets; titles: Titles }) {
  const version = useLabVersion();
  const urlRead = useUrlRead();
  const sheet = sheets[version];
  const t = useTranslations("lab");
  const prose = useLessonProse();
  const words = (english: string) => <Prose words={prose.localize(english)} />;
  const reproducible = sheet.reproducible === "yes" ? "yes" : "partly";

  return (
    <main className="mx-auto max-w-3xl px-4 py-6 [overflow-wrap:anywhere] sm:px-6" data-version={version}>
      <div className="mb-2 flex justify-end">
        <LanguageSwitch />
      </div>
      <nav aria-label={t("sheets")} className="text-sm">
        <ul className="flex flex-wrap gap-x-4 gap-y-2">
          {titles.map((other) => (
            <li key={other.id}>
              <a
                href={sheetHref(other.slug, version)}
                aria-current={other.id === sheet.id ? "page" : undefined}
                className={other.id === sheet.id ? "font-semibold text-slate-100" : "text-sky-300 underline"}
              >
                {words(other.title)}
              </a>
            </li>
          ))}
        </ul>
      </nav>

      <header className="mt-6">
        <p className="text-sm font-semibold uppercase tracking-widest text-sky-300">{t("kicker")}</p>
        <h1 className="mt-1 text-3xl font-bold">{words(sheet.title)}</h1>
        <p className="mt-3 text-slate-200">{words(sheet.summary)}</p>
        <VersionSwitch slug={sheet.slug} version={version} />
        <p className="mt-2 text-sm text-slate-400" data-testid="lab-version-statement">
          {words(sheet.versionStatement)}
        </p>
        <p className="mt-4">
          <a
            href={`/lab/${sheet.slug}/download?${LAB_VERSION_PARAM}=${version}`}
            download={labSheetFileName(sheet)}
            data-testid="lab-download"
            className="inline-block rounded-lg bg-sky-400 px-4 py-2 font-semibold text-slate-950"
          >
            {t("download")}
          </a>
        </p>
        <Contents reproducible={reproducible} />
      </header>

      <section aria-labelledby={SECTIONS.limits} className="mt-8" data-testid="lab-limits" data-reproducible={sheet.reproducible}>
        <h2 id={SECTIONS.limits} tabIndex={-1} className={`text-xl font-semibold ${TARGET}`}>
          {t("onLaptop", { reproducible })}
        </h2>
        <ul className="mt-2 list-disc space-y-2 ps-5 text-slate-200">
          {sheet.limits.map((limit) => (
            <li key={limit}>{words(limit)}</li>
          ))}
        </ul>
      </section>

      <section aria-labelledby={SECTIONS.install} className="mt-8">
        <h2 id={SECTIONS.install} tabIndex={-1} className={`text-xl font-semibold ${TARGET}`}>
          {t("install")}
        </h2>
        <p className="mt-2 text-slate-200">
          {t.rich("cluster", {
            tool: () => <span {...KUBE_BLOCK}>{sheet.cluster.tool}</span>,
            name: () => (
              <code className="font-mono" {...KUBE_BLOCK}>
                {sheet.cluster.name}
              </code>
            ),
            nodes: () => words(sheet.cluster.nodes),
          })}
        </p>
        {sheet.install.map((item) => (
          <div key={item.what} className="mt-4">
            <h3 className="font-semibold">{words(item.what)}</h3>
            <p className="mt-1 text-slate-300">{words(item.why)}</p>
            {item.files?.map((file) => (
              <div key={file.file} className="mt-3">
                <h4 className="font-mono font-semibold" {...KUBE_BLOCK}>
                  {file.file}
                </h4>
                <pre className={CODE} data-testid="lab-manifest" data-file={file.file} {...KUBE_BLOCK}>
                  {file.body}
                </pre>
              </div>
            ))}
            <pre className={CODE} data-testid="lab-install-commands" {...KUBE_BLOCK}>
              {item.commands.join("\n")}
            </pre>
            {item.note && <p className="mt-2 text-sm text-slate-300">{words(item.note)}</p>}
          </div>
        ))}
      </section>

      <section aria-labelledby={SECTIONS.manifests} className="mt-8">
        <h2 id={SECTIONS.manifests} tabIndex={-1} className={`text-xl font-semibold ${TARGET}`}>
          {t("manifests")}
        </h2>
        {sheet.manifests.map((m) => (
          <div key={m.file} className="mt-4">
            <h3 className="font-mono font-semibold" {...KUBE_BLOCK}>
              {m.file}
            </h3>
            <pre className={CODE} data-testid="lab-manifest" data-file={m.file} {...KUBE_BLOCK}>
              {m.body}
            </pre>
          </div>
        ))}
      </section>

      <section aria-labelledby={SECTIONS.setup} className="mt-8">
        <h2 id={SECTIONS.setup} tabIndex={-1} className={`text-xl font-semibold ${TARGET}`}>
          {t("setup")}
        </h2>
        <pre className={CODE} {...KUBE_BLOCK}>
          {commandBlock(sheet.setup)}
        </pre>
        <p className="mt-3 text-slate-300">{t.rich("watchLead", { k8s })}</p>
        <pre className={CODE} data-testid="lab-watch" {...KUBE_BLOCK}>
          {commandBlock(sheet.watch)}
        </pre>
        <p className="mt-3 text-slate-300">{t.rich("eventsLead", { k8s })}</p>
        <pre className={CODE} {...KUBE_BLOCK}>
          {commandBlock(sheet.events)}
        </pre>
      </section>

      <section aria-labelledby={SECTIONS.steps} className="mt-8">
        <h2 id={SECTIONS.steps} tabIndex={-1} className={`text-xl font-semibold ${TARGET}`}>
          {t("steps")}
        </h2>
        <ol className="mt-2 space-y-6">
          {sheet.steps.map((step) => (
            <li key={step.position} data-testid="lab-step" data-step={step.position} data-label={step.label}>
              <h3 className="text-lg font-semibold">
                {t.rich("step", { position: step.position, label: step.label, title: () => words(step.title) })}
              </h3>
              {step.note && <p className="mt-1 text-slate-300">{words(step.note)}</p>}
              {step.run.length > 0 && (
                <pre className={CODE} {...KUBE_BLOCK}>
                  {commandBlock(step.run)}
                </pre>
              )}
              {step.check.map((check) => (
                <Check key={check.command} check={check} />
              ))}
              {step.events.length > 0 ? (
                <>
                  <p className="mt-2 text-slate-300">{t.rich("newEvents", { k8s })}</p>
                  <pre className={CODE} data-testid="lab-step-events" {...KUBE_BLOCK}>
                    {step.events.join("\n")}
                  </pre>
                </>
              ) : (
                <p className="mt-2 text-slate-400">{t("noNewEvents")}</p>
              )}
            </li>
          ))}
        </ol>
      </section>

      <section aria-labelledby={SECTIONS.check} className="mt-10">
        <h2 id={SECTIONS.check} tabIndex={-1} className={`text-xl font-semibold ${TARGET}`}>
          {t("check")}
        </h2>
        {/* While hydrating, `version` is the server's default, not the URL's: the check then reads the URL itself when it mounts. */}
        <ClusterCheck scenarioId={sheet.id} version={urlRead ? version : undefined} />
      </section>

      <section aria-labelledby={SECTIONS.cleanup} className="mt-10 mb-10">
        <h2 id={SECTIONS.cleanup} tabIndex={-1} className={`text-xl font-semibold ${TARGET}`}>
          {t("cleanup")}
        </h2>
        <pre className={CODE} {...KUBE_BLOCK}>
          {commandBlock(sheet.cleanup)}
        </pre>
      </section>
    </main>
  );
}
