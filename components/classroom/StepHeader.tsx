import { useLocale, useTranslations } from "next-intl";
import { KUBE_VERSIONS, type KubeVersion } from "@/lib/lesson/versions";
import type { Scenario } from "@/lib/lesson/types";
import type { LessonDiagram } from "@/lib/lesson/model";
import { initialWorld } from "@/lib/lesson/world";
import type { PublicSnapshot } from "@/lib/session/views";
import type { BindingMode } from "@/lib/lesson/types";
import { scenarioName } from "@/components/theme";
import { stringAt } from "@/lib/guards";
import { stepNumber } from "@/lib/lesson/stepNumbers";

/** The current step, its narration and the mode, announced politely to screen readers when they change. */
export function StepHeader({
  scenario,
  snapshot,
  large,
  lessonLang,
  captionLang = lessonLang,
}: {
  scenario: Pick<LessonDiagram, "steps">;
  snapshot: Pick<PublicSnapshot, "stepIndex">;
  large?: boolean;
  /**
   * The language of the lesson's own words (narration, why): the reader's where the built-in lesson is
   * translated, "en" where it is not; unset for a teacher's lesson, which is in whatever language its teacher wrote.
   */
  lessonLang?: string;
  /**
   * The language of the step's title. The built-in lesson's titles are the card's captions (CREATE PVC),
   * never translated, so "en" there whatever the narration's language; a teacher's lesson's follow lessonLang.
   */
  captionLang?: string;
}) {
  const t = useTranslations("classroom");
  const step = scenario.steps[snapshot.stepIndex];
  const total = scenario.steps.length;
  const { ordinal, card } = stepNumber(scenario.steps, snapshot.stepIndex);
  return (
    <section aria-label={t("currentStep")} className="min-w-0">
      <div
        className="[overflow-wrap:anywhere]"
        data-testid="step-indicator"
        data-step={snapshot.stepIndex + 1}
        data-total={total}
        data-label={step?.label}
        aria-live="polite"
        aria-atomic="true"
      >
        <p className={`font-semibold uppercase tracking-widest text-sky-300 ${large ? "text-base" : "text-sm"}`}>
          {t("stepOf", { step: ordinal, total })}
          {step && card !== null && (
            <>
              {" "}
              <CardStepTag card={card} className="ms-1 align-middle normal-case tracking-normal" />
            </>
          )}
        </p>
        <h2
          lang={captionLang}
          className={`mt-1 font-bold ${large ? "text-[2rem] leading-tight" : "text-2xl sm:text-3xl"} ${step?.failed ? "text-rose-300" : ""}`}
        >
          {step ? `${ordinal} ${step.title}` : "—"}
        </h2>
        <p
          lang={lessonLang}
          data-testid="step-narration"
          className={`mt-2 text-slate-200 ${large ? "text-[1.2rem] leading-snug" : "text-lg leading-relaxed"}`}
        >
          {step?.narration}
        </p>
        {step?.why && (
          <p className={`mt-2 text-emerald-200 ${large ? "text-[1.1rem]" : "text-base"}`} data-testid="step-why">
            {t("why")} <span lang={lessonLang}>{step.why}</span>
          </p>
        )}
      </div>
    </section>
  );
}

/**
 * The card's number for a step, beside the number of its place in the order
 * shown, where the two differ: named as the card's, so "2 · card step 6" reads
 * as the lesson (Immediate moved it) and not as a typo. A screen reader hears
 * which order the card follows.
 */
export function CardStepTag({ card, className = "", onLight }: { card: number; className?: string; onLight?: boolean }) {
  const t = useTranslations("classroom");
  const locale = useLocale();
  const tag = t("cardStep", { card });
  // A tooltip and a screen reader's text are plain strings: the mode's name is written as it is, untagged.
  const note = t.markup("cardOrderNote", { k8s: (chunks) => chunks });
  return (
    <span
      data-testid="card-step"
      data-card-step={card}
      // Chrome in the reader's language, also where it sits inside the lesson's English (the step list).
      lang={locale}
      title={t("cardStepTitle", { card, note })}
      className={`inline-block whitespace-nowrap rounded border px-1.5 ${onLight ? "border-slate-800 text-slate-900" : "border-slate-400/70 text-slate-200"} ${className}`}
    >
      {/* Read aloud as one phrase: split around the visible words, a screen reader pauses in odd places. */}
      <span aria-hidden="true">{tag}</span>
      <span className="sr-only">{`(${tag}, ${note})`}</span>
    </span>
  );
}

/**
 * The StorageClass fields that make the scenario, as the class spells them.
 * "Local" is not a volumeBindingMode: the local class is WaitForFirstConsumer
 * with provisioner kubernetes.io/no-provisioner, so the badge says exactly that.
 */
export function ModeBadge({
  mode,
  scenario,
  version,
  large,
  versionTestId = "k8s-version",
}: {
  mode: BindingMode;
  scenario: Scenario;
  /** The release whose strings the screens print (the session's). */
  version: KubeVersion;
  large?: boolean;
  /** The console has its version control under `k8s-version`; its label takes another name. */
  versionTestId?: string;
}) {
  const t = useTranslations("classroom");
  // An id stands for a range (lib/lesson/versions.ts): the oldest reads "or older", the newest "or later".
  const release =
    version === KUBE_VERSIONS[0]
      ? t("versionOrOlder", { version })
      : version === KUBE_VERSIONS[KUBE_VERSIONS.length - 1]
        ? t("versionOrLater", { version })
        : version;
  const sc = initialWorld(scenario).storageClass;
  const storageClass = { volumeBindingMode: stringAt(sc, "volumeBindingMode"), provisioner: stringAt(sc, "provisioner") };
  const noProvisioner = storageClass.provisioner === "kubernetes.io/no-provisioner";
  return (
    // Field names and values as Kubernetes spells them: left to right inside right-to-left text.
    <p className={`inline-flex flex-wrap items-center gap-2 ${large ? "text-[0.875rem]" : "text-sm"}`}>
      {scenarioName(scenario) !== storageClass.volumeBindingMode && (
        <span
          className={`rounded-md px-2 py-0.5 font-semibold ${scenario.variant !== "standard" ? "bg-rose-400/15 text-rose-200" : "bg-slate-700 text-slate-100"}`}
          data-testid="scenario-name"
          lang="en"
        >
          {scenarioName(scenario)}
        </span>
      )}
      <span dir="ltr" translate="no" className="text-slate-400">
        volumeBindingMode
      </span>
      <span
        data-testid="binding-mode"
        data-mode={mode}
        data-variant={scenario.variant}
        dir="ltr"
        translate="no"
        className="rounded-md border border-sky-400/60 bg-sky-400/10 px-2 py-0.5 font-mono font-semibold text-sky-200"
      >
        {storageClass.volumeBindingMode}
      </span>
      {noProvisioner && (
        <>
          <span dir="ltr" translate="no" className="text-slate-400">
            provisioner
          </span>
          <span
            className="rounded-md border border-amber-400/60 bg-amber-400/10 px-2 py-0.5 font-mono font-semibold text-amber-200"
            data-testid="provisioner"
            dir="ltr"
            translate="no"
          >
            {storageClass.provisioner}
          </span>
        </>
      )}
      <span
        className="text-slate-300"
        data-testid={versionTestId}
        data-version={version}
        title={t("asKubernetesPrintsTitle", { version: release })}
      >
        {t("asKubernetesPrints", { version: release })}
      </span>
    </p>
  );
}
