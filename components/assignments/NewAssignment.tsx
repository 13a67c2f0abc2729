"use client";

import { useLocale, useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import type { AccountLessonList, AccountSessionList } from "@/lib/account/ownership";
import type { CreateAssignmentBody, CreatedAssignment } from "@/lib/course/rest";
import { BINDING_MODES } from "@/lib/lesson/types";
import { DEFAULT_KUBE_VERSION, KUBE_VERSIONS, type KubeVersion } from "@/lib/lesson/versions";
import { scenarioName } from "@/components/theme";
import { VARIANTS_BY_MODE, getScenario } from "@/lib/lesson/scenarios";
import { localizeScenario } from "@/lib/lesson/localize";
import { useLessonProse } from "@/components/i18n/useScenario";
import { callApi } from "@/components/selfPaced/api";
import { useAssignmentErrorText } from "@/components/selfPaced/useSelfPacedText";
import { useKubeVersionLabel } from "./LessonWords";

type SourceKind = "builtin" | "lesson" | "session";

/** Every built-in scenario the class can walk: the binding modes and their variants. */
const SCENARIOS = BINDING_MODES.flatMap((mode) =>
  VARIANTS_BY_MODE[mode].map((variant) => ({ mode, variant, value: `${mode}/${variant}` })),
);

const field = "mt-1 w-full rounded-lg border border-slate-600 bg-slate-950 px-3 py-2 text-base";

/**
 * Making an assignment: from a built-in scenario (in the class's release), a
 * teacher's lesson, or a finished session (its polls as they were asked);
 * with an optional due date and nickname requirement. `?lesson=` or
 * `?session=` in the address preselects one (the lessons and sessions lists link here).
 */
export function NewAssignment({
  onCreated,
  preset,
}: {
  onCreated: (c: CreatedAssignment) => void;
  preset: { lesson: string | null; session: string | null };
}) {
  const t = useTranslations("assignments.new");
  const common = useTranslations("common");
  const locale = useLocale();
  const errorText = useAssignmentErrorText();
  const versionLabel = useKubeVersionLabel();
  const prose = useLessonProse();
  const [kind, setKind] = useState<SourceKind>(preset.session ? "session" : preset.lesson ? "lesson" : "builtin");
  const [scenario, setScenario] = useState(SCENARIOS[0].value);
  const [version, setVersion] = useState<KubeVersion>(DEFAULT_KUBE_VERSION);
  const [lessonId, setLessonId] = useState(preset.lesson ?? "");
  const [sessionId, setSessionId] = useState(preset.session ?? "");
  const [title, setTitle] = useState("");
  const [due, setDue] = useState("");
  const [requireNickname, setRequireNickname] = useState(true);
  const [lessons, setLessons] = useState<AccountLessonList["lessons"]>([]);
  const [sessions, setSessions] = useState<AccountSessionList["sessions"]>([]);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [someSteps, setSomeSteps] = useState(false);
  const [picked, setPicked] = useState<ReadonlySet<number>>(new Set());

  useEffect(() => {
    callApi<AccountLessonList>("/api/account/lessons")
      .then((l) => setLessons(l.lessons))
      .catch(() => setLessons([]));
    callApi<AccountSessionList>("/api/account/sessions")
      .then((s) => setSessions(s.sessions.filter((x) => x.status === "ended" && x.pollCount > 0)))
      .catch(() => setSessions([]));
  }, []);

  // The steps a "what happens next?" can follow: every one but the last.
  const pickedScenario = SCENARIOS.find((s) => s.value === scenario) ?? SCENARIOS[0];
  // The built-in scenario's step titles in the reader's language; a lesson's steps by number (its titles are not listed here).
  const builtIn = localizeScenario(getScenario(pickedScenario.mode, pickedScenario.variant), prose);
  const askable: { name: string; lang: string | undefined }[] =
    kind === "builtin"
      ? builtIn.scenario.steps.slice(0, -1).map((st) => ({ name: st.title, lang: builtIn.langOf(st.title) }))
      : kind === "lesson"
        ? Array.from({ length: Math.max(0, (lessons.find((l) => l.id === lessonId)?.stepCount ?? 0) - 1) }, (_, i) => ({
            name: t("stepN", { n: i + 1 }),
            lang: undefined,
          }))
        : [];

  function body(): CreateAssignmentBody | null {
    const common = {
      title: title.trim() || undefined,
      dueAt: due ? new Date(due).getTime() : null,
      requireNickname,
      ...(someSteps && kind !== "session" ? { steps: [...picked].filter((i) => i < askable.length).sort((a, b) => a - b) } : {}),
    };
    if (kind === "builtin") {
      const picked = SCENARIOS.find((s) => s.value === scenario) ?? SCENARIOS[0];
      return { ...common, source: { kind, mode: picked.mode, variant: picked.variant }, kubeVersion: version };
    }
    if (kind === "lesson") return lessonId ? { ...common, source: { kind, lessonId } } : null;
    return sessionId ? { ...common, source: { kind, sessionId } } : null;
  }

  return (
    <form
      className="space-y-4 rounded-2xl border border-slate-700 bg-slate-900/60 p-5"
      aria-labelledby="new-assignment"
      onSubmit={(e) => {
        e.preventDefault();
        const b = body();
        if (!b) return setError(kind === "lesson" ? t("chooseLesson") : t("chooseSession"));
        if (b.steps && b.steps.length === 0) return setError(t("pickStep"));
        setBusy(true);
        setError("");
        callApi<CreatedAssignment>("/api/assignments", { json: b })
          .then(onCreated)
          .catch((err: unknown) => setError(errorText(err)))
          .finally(() => setBusy(false));
      }}
    >
      <h2 id="new-assignment" className="text-2xl font-bold">
        {t("heading")}
      </h2>
      <fieldset>
        <legend className="font-semibold">{t("madeFrom")}</legend>
        <div className="mt-2 flex flex-wrap gap-4">
          {(
            [
              ["builtin", t("fromBuiltin")],
              ["lesson", t("fromLesson")],
              ["session", t("fromSession")],
            ] as const
          ).map(([value, label]) => (
            <label key={value} className="flex items-center gap-2">
              <input
                type="radio"
                name="source"
                value={value}
                checked={kind === value}
                onChange={() => setKind(value)}
                className="h-5 w-5"
              />
              {label}
            </label>
          ))}
        </div>
      </fieldset>
      {kind === "builtin" && (
        <div className="grid gap-4 sm:grid-cols-2">
          <label className="block">
            {t("scenario")}
            <select data-testid="assign-scenario" value={scenario} onChange={(e) => setScenario(e.target.value)} className={field}>
              {SCENARIOS.map((s) => {
                const named = localizeScenario(getScenario(s.mode, s.variant), prose);
                const name = scenarioName(named.scenario);
                return (
                  <option key={s.value} value={s.value} lang={named.langOf(name)}>
                    {name}
                  </option>
                );
              })}
            </select>
          </label>
          <label className="block">
            {t("release")}
            <select
              data-testid="assign-version"
              value={version}
              onChange={(e) => setVersion(KUBE_VERSIONS.find((v) => v === e.target.value) ?? DEFAULT_KUBE_VERSION)}
              className={field}
            >
              {KUBE_VERSIONS.map((v) => (
                <option key={v} value={v}>
                  {versionLabel(v)}
                </option>
              ))}
            </select>
          </label>
        </div>
      )}
      {kind === "lesson" && (
        <label className="block">
          {t("lesson")}
          <select data-testid="assign-lesson-id" value={lessonId} onChange={(e) => setLessonId(e.target.value)} className={field}>
            <option value="">{lessons.length ? t("chooseALesson") : t("noLessons")}</option>
            {lessons.map((l) => (
              <option key={l.id} value={l.id} translate="no">
                {l.title}
              </option>
            ))}
          </select>
        </label>
      )}
      {kind === "session" && (
        <label className="block">
          {t("session")}
          <select data-testid="assign-session-id" value={sessionId} onChange={(e) => setSessionId(e.target.value)} className={field}>
            <option value="">{sessions.length ? t("chooseASession") : t("noSessions")}</option>
            {sessions.map((s) => (
              <option key={s.id} value={s.id}>
                {t("sessionOption", {
                  title: s.title || s.code,
                  date: new Date(s.createdAt).toLocaleDateString(locale),
                  polls: s.pollCount,
                })}
              </option>
            ))}
          </select>
        </label>
      )}
      {kind !== "session" && askable.length > 0 && (
        <fieldset>
          <legend className="font-semibold">{t("askLegend")}</legend>
          <div className="mt-2 flex flex-wrap gap-4">
            <label className="flex items-center gap-2">
              <input type="radio" name="steps" checked={!someSteps} onChange={() => setSomeSteps(false)} className="h-5 w-5" />
              {t("everyStep")}
            </label>
            <label className="flex items-center gap-2">
              <input
                type="radio"
                name="steps"
                checked={someSteps}
                onChange={() => setSomeSteps(true)}
                className="h-5 w-5"
                data-testid="assign-some-steps"
              />
              {t("pickedSteps")}
            </label>
          </div>
          {someSteps && (
            <div className="mt-3 grid gap-2 sm:grid-cols-3">
              {askable.map(({ name, lang }, i) => (
                <label key={i} className="flex items-center gap-2">
                  <input
                    type="checkbox"
                    checked={picked.has(i)}
                    onChange={(e) => {
                      const next = new Set(picked);
                      if (e.target.checked) next.add(i);
                      else next.delete(i);
                      setPicked(next);
                    }}
                    className="h-5 w-5"
                    data-testid="assign-step"
                    data-step={i + 1}
                  />
                  {i + 1}. <span lang={lang}>{name}</span>
                </label>
              ))}
            </div>
          )}
        </fieldset>
      )}
      <div className="grid gap-4 sm:grid-cols-2">
        <label className="block">
          {t("title")} <span className="text-slate-400">{common("optional")}</span>
          <input data-testid="assign-title" value={title} maxLength={120} onChange={(e) => setTitle(e.target.value)} className={field} />
        </label>
        <label className="block">
          {t("due")} <span className="text-slate-400">{common("optional")}</span>
          <input data-testid="assign-due" type="datetime-local" value={due} onChange={(e) => setDue(e.target.value)} className={field} />
        </label>
      </div>
      <label className="flex items-center gap-2">
        <input
          type="checkbox"
          checked={requireNickname}
          onChange={(e) => setRequireNickname(e.target.checked)}
          className="h-5 w-5"
          data-testid="assign-nickname"
        />
        {t("requireNickname")}
      </label>
      {error && (
        <p role="alert" className="text-rose-200">
          {error}
        </p>
      )}
      <button
        type="submit"
        disabled={busy}
        data-testid="assign-lesson"
        className="rounded-lg bg-emerald-400 px-5 py-3 text-lg font-semibold text-slate-950 disabled:opacity-60"
      >
        {t("submit")}
      </button>
    </form>
  );
}
