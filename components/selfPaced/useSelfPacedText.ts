"use client";

import { useLocale, useTranslations } from "next-intl";
import { useCallback } from "react";
import { AssignmentApiError } from "./api";

/** The refusals of the assignments API that the catalog words (server/assignments: service.ts and routes.ts). */
const ASSIGNMENT_CODES = [
  "ASSIGNMENT_CLOSED",
  "ASSIGNMENT_DUE",
  "ASSIGNMENT_FULL",
  "NO_SUCH_ASSIGNMENT",
  "NOT_A_STUDENT",
  "NICKNAME_REQUIRED",
  "NO_SUCH_POLL",
  "NOT_THERE_YET",
  "ALREADY_ANSWERED",
  "BAD_OPTION",
  "ANSWER_FIRST",
  "BAD_STEP",
  "RATE_LIMITED",
  "NETWORK",
  "INTERNAL",
] as const;

/**
 * A refusal of the assignments API as the student reads it: English keeps
 * the server's own sentence (the teacher's pages share api.ts and read it
 * too); another language reads its catalog's sentence for the code.
 */
export function useAssignmentErrorText(): (err: unknown) => string {
  const t = useTranslations("assignmentErrors");
  const common = useTranslations("common");
  const locale = useLocale();
  return useCallback(
    (err: unknown) => {
      if (!(err instanceof AssignmentApiError)) return locale === "en" && err instanceof Error ? err.message : common("somethingWrong");
      if (locale === "en" && err.message) return err.message;
      const known = ASSIGNMENT_CODES.find((c) => c === err.code);
      return known ? t(known) : err.message;
    },
    [t, common, locale],
  );
}

/** When an assignment is due, "Friday 12 December, 17:00": in the page's language and the reader's time zone. */
export function useDueWhen(): (dueAt: number) => string {
  const locale = useLocale();
  return useCallback(
    (dueAt: number) =>
      new Intl.DateTimeFormat(locale, { weekday: "long", day: "numeric", month: "long", hour: "2-digit", minute: "2-digit" }).format(dueAt),
    [locale],
  );
}
