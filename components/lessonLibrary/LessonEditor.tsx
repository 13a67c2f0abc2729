"use client";

import { useTranslations } from "next-intl";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { readReply } from "@/components/account/api";
import { useAccountErrorText } from "@/components/account/useAccountErrorText";
import { SequenceDiagram } from "@/components/diagram/SequenceDiagram";
import { LESSON_LIMITS, builtInDiagram, customDiagram, type CustomLesson } from "@/lib/lesson/model";
import { diagramAsCustomLesson, parseMermaidLesson, toMermaid, type LessonParseError } from "@/lib/lesson/mermaid";
import { getScenario } from "@/lib/lesson/scenarios";
import type { CreatedLesson, LessonDetail } from "@/lib/protocol/rest";
import { lessonHeaders, saveLessonKey } from "./lessonKeys";
import { startLessonSession } from "./startLesson";

const PARSE_DELAY_MS = 250;

const EXAMPLE = `---
title: My lesson
---
sequenceDiagram
  participant A as Alice
  participant B as Bob
  A->>B: Hello Bob, it is Alice: are you free at 10:00 on Tuesday?
  %% title: Alice asks
  %% why: Every exchange starts with a greeting.
  B-->>A: Hi back
`;

/** Mermaid, loaded only here (the lesson editor), the first time it is needed. */
let mermaidApi: Promise<(text: string) => Promise<{ type: string; db: unknown }>> | null = null;
function loadMermaid() {
  mermaidApi ??= import("mermaid").then(({ default: mermaid }) => {
    mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });
    return (text: string) => mermaid.mermaidAPI.getDiagramFromText(text);
  });
  return mermaidApi;
}

/** An error message's `quoted` Mermaid, shown as code (the messages quote it with backticks). */
function withCode(message: string) {
  return message.split("`").map((part, i) =>
    i % 2 ? (
      <code key={i} className="rounded bg-rose-900 px-1">
        {part}
      </code>
    ) : (
      part
    ),
  );
}

/**
 * "New lesson from a sequence diagram": the teacher's Mermaid text, parsed by
 * Mermaid in this browser as they type, previewed with the class's own
 * renderer, errors pointed at their line and column. Saving sends the parsed
 * lesson (and the text, for export); the server checks it again.
 */
/** Mermaid syntax inside a catalog sentence: code, never translated. */
const syntax = (chunks: ReactNode) => <code translate="no">{chunks}</code>;

export function LessonEditor() {
  const t = useTranslations("authoring");
  const errorText = useAccountErrorText();
  const [source, setSource] = useState("");
  const [editing, setEditing] = useState<{ id: string; version: number } | null>(null);
  const [lesson, setLesson] = useState<CustomLesson | null>(null);
  const [error, setError] = useState<LessonParseError | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [saved, setSaved] = useState<{ id: string; version: number } | null>(null);
  const [busy, setBusy] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);

  // ?id=… edits a lesson (a new version on save); &copy=1 duplicates it; ?builtin=1 starts from the built-in lesson.
  useEffect(() => {
    const params = new URLSearchParams(window.location.search);
    const id = params.get("id");
    if (params.get("builtin") === "1") {
      setSource(toMermaid(diagramAsCustomLesson(builtInDiagram(getScenario("WaitForFirstConsumer", "standard")))));
      return;
    }
    if (!id) {
      setSource(EXAMPLE);
      return;
    }
    void fetch(`/api/lessons/${encodeURIComponent(id)}`, { headers: lessonHeaders(id) })
      .then((res) => readReply<LessonDetail>(res))
      .then(
        (lesson) => {
          setSource(lesson.source);
          if (params.get("copy") !== "1") setEditing({ id, version: lesson.version });
        },
        (err: unknown) => setStatus(errorText(err)),
      );
  }, [errorText]);

  useEffect(() => {
    let stale = false;
    const timer = setTimeout(() => {
      void loadMermaid()
        .then((api) => parseMermaidLesson(source, api))
        .then((result) => {
          if (stale) return;
          if (result.ok) {
            setLesson(result.lesson);
            setError(null);
          } else setError(result.error);
        });
    }, PARSE_DELAY_MS);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [source]);

  function showErrorLine() {
    const el = area.current;
    if (!el || !error) return;
    const lines = source.split("\n");
    const start = lines.slice(0, error.line - 1).reduce((n, l) => n + l.length + 1, 0) + Math.max(0, error.column - 1);
    el.focus();
    el.setSelectionRange(start, start + (lines[error.line - 1]?.length ?? 0) - Math.max(0, error.column - 1));
  }

  /** Puts the suggested line in place of the wrong one (keeping its indentation), and the caret at its end. */
  function applySuggestion() {
    if (!error?.suggestion) return;
    const lines = source.split("\n");
    const old = lines[error.line - 1] ?? "";
    const indent = /^\s*/.exec(old)?.[0] ?? "";
    // An uploaded file may end its lines with \r\n: keep the line's ending as it was.
    lines[error.line - 1] = `${indent}${error.suggestion}${old.endsWith("\r") ? "\r" : ""}`;
    const end = lines.slice(0, error.line).join("\n").length - (old.endsWith("\r") ? 1 : 0);
    setSource(lines.join("\n"));
    const el = area.current;
    if (!el) return;
    // The fix button goes away with the error: the caret goes back where the teacher was working.
    el.focus();
    requestAnimationFrame(() => el.setSelectionRange(end, end));
  }

  async function save() {
    if (!lesson || error) return;
    setBusy(true);
    setStatus(null);
    const body = JSON.stringify({ lesson, source });
    try {
      const res = editing
        ? await fetch(`/api/lessons/${editing.id}`, {
            method: "PUT",
            headers: { "content-type": "application/json", ...lessonHeaders(editing.id) },
            body,
          })
        : await fetch("/api/lessons", { method: "POST", headers: { "content-type": "application/json" }, body });
      if (editing) {
        const version = await readReply<{ id: string; version: number }>(res);
        setEditing(version);
        setSaved(version);
        setStatus(t("savedVersion", { version: version.version }));
      } else {
        const created = await readReply<CreatedLesson>(res);
        saveLessonKey(created.id, created.lessonKey);
        setEditing({ id: created.id, version: created.version });
        setSaved({ id: created.id, version: created.version });
        setStatus(t("savedNew"));
      }
    } catch (err) {
      setStatus(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  const diagram = lesson ? customDiagram(lesson) : null;
  // The preview keeps the last lesson that parsed: while the text has an error, it must say so.
  const stale = error && lesson ? error : null;
  return (
    <div className="mt-6 grid grid-cols-[minmax(0,1fr)] gap-6 xl:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
      <section aria-labelledby="source-heading" className="space-y-3">
        <h2 id="source-heading" className="text-xl font-semibold">
          {t("sourceHeading")}
        </h2>
        <div className="space-y-2 text-sm text-slate-300" data-testid="lesson-syntax">
          <p>{t.rich("syntaxSteps", { c: syntax })}</p>
          <ul className="list-disc space-y-1 ps-5">
            <li>{t.rich("syntaxTitle", { c: syntax, max: LESSON_LIMITS.shortTitle })}</li>
            <li>{t.rich("syntaxNotes", { c: syntax })}</li>
          </ul>
          <p>{t.rich("syntaxUnsupported", { c: syntax })}</p>
        </div>
        <label htmlFor="lesson-source" className="sr-only">
          {t("sourceLabel")}
        </label>
        <textarea
          id="lesson-source"
          ref={area}
          data-testid="lesson-source"
          value={source}
          onChange={(e) => setSource(e.target.value)}
          spellCheck={false}
          translate="no"
          dir="ltr"
          rows={22}
          className="w-full rounded-xl border border-slate-600 bg-slate-950 p-3 font-mono text-sm text-slate-100"
          aria-describedby={error ? "lesson-error" : undefined}
          aria-invalid={error ? true : undefined}
        />
        <label className="inline-block cursor-pointer rounded-lg border border-slate-500 px-3 py-2 text-sm font-semibold hover:bg-slate-800">
          {t.rich("upload", { c: syntax })}
          <input
            type="file"
            accept=".mmd,.md,.txt,text/plain"
            className="sr-only"
            onChange={(e) => void e.target.files?.[0]?.text().then(setSource)}
          />
        </label>{" "}
        <a href="/lessons/edit?builtin=1" className="text-sm text-sky-300 underline">
          {t("fromBuiltIn", { steps: 12 })}
        </a>
        {error && (
          <div
            id="lesson-error"
            role="alert"
            data-testid="lesson-error"
            data-line={error.line}
            data-column={error.column}
            className="space-y-2 rounded-lg bg-rose-950 px-3 py-2 text-rose-100 [overflow-wrap:anywhere]"
          >
            <p>
              {t.rich("errorAt", {
                line: error.line,
                column: error.column,
                at: (chunks) => (
                  <button type="button" onClick={showErrorLine} className="font-semibold underline">
                    {chunks}
                  </button>
                ),
                // The parser's sentence (lib/lesson/mermaid.ts) is English, and quotes the teacher's own Mermaid.
                message: () => <span lang="en">{withCode(error.message)}</span>,
              })}
            </p>
            {error.suggestion && (
              <p className="flex flex-wrap items-center gap-2">
                <span>
                  {t.rich("wouldRead", {
                    line: error.line,
                    suggestion: () => (
                      <code data-testid="lesson-error-suggestion" translate="no" dir="ltr">
                        {error.suggestion}
                      </code>
                    ),
                  })}
                </span>
                <button
                  type="button"
                  data-testid="lesson-error-fix"
                  onClick={applySuggestion}
                  className="rounded-md border border-rose-200 px-2 py-0.5 text-sm font-semibold hover:bg-rose-900"
                >
                  {t("useLine")}
                </button>
              </p>
            )}
          </div>
        )}
        <div className="flex flex-wrap items-center gap-3">
          <button
            type="button"
            data-testid="lesson-save"
            disabled={!lesson || !!error || busy}
            onClick={() => void save()}
            className="rounded-lg bg-sky-400 px-5 py-2 font-semibold text-slate-950 disabled:opacity-50"
          >
            {editing ? t("saveVersion") : t("save")}
          </button>
          {saved && (
            <button
              type="button"
              data-testid="lesson-start"
              onClick={() => void startLessonSession(saved.id).then((err) => err && setStatus(errorText(err, "startSession")))}
              className="rounded-lg border border-emerald-400 px-5 py-2 font-semibold text-emerald-100 hover:bg-emerald-950"
            >
              {t("start")}
            </button>
          )}
          <a href="/lessons" className="text-sky-300 underline">
            {t("yourLessons")}
          </a>
        </div>
        {status && (
          <p role="status" data-testid="lesson-status" className="text-slate-200">
            {status}
          </p>
        )}
      </section>
      <section aria-labelledby="preview-heading">
        <h2 id="preview-heading" className="text-xl font-semibold [overflow-wrap:anywhere]">
          {lesson
            ? t.rich("preview", {
                stale: stale ? "yes" : "no",
                steps: lesson.steps.length,
                title: () => <span translate="no">{lesson.title}</span>,
              })
            : t("previewEmpty")}
        </h2>
        {stale && (
          <p
            data-testid="lesson-preview-stale"
            className="mt-2 rounded-lg border border-amber-300/70 bg-amber-950 px-3 py-2 text-amber-100"
          >
            {t.rich("stale", { line: stale.line, strong: (chunks) => <strong>{chunks}</strong> })}
          </p>
        )}
        <div
          data-testid="lesson-preview"
          data-steps={diagram?.steps.length ?? 0}
          data-stale={error ? "true" : undefined}
          // The preview is the teacher's own lesson, drawn as written; lifelines keep their order in any language.
          translate="no"
          dir="ltr"
          className={`mt-3 rounded-2xl border bg-slate-950/60 p-2 ${stale ? "border-dashed border-amber-300/70 opacity-50 grayscale" : "border-slate-800"}`}
        >
          {diagram ? (
            <SequenceDiagram scenario={diagram} stepIndex={diagram.steps.length - 1} className="h-auto w-full" />
          ) : (
            <p className="p-4 text-slate-300" translate="yes" dir="auto">
              {error ? t("diagramAfterErrors") : t("diagramHere")}
            </p>
          )}
        </div>
      </section>
    </div>
  );
}
