"use client";

import { useLocale, useTranslations } from "next-intl";
import { useCallback } from "react";
import { ACCOUNT_ERRORS, type AccountErrorCode } from "@/lib/account/rest";
import { AccountApiError } from "./api";

/** Refusals the browser makes up itself (passkey.ts, api.ts) or that the lessons and sessions APIs add to the account API's. */
const MORE_CODES = ["NETWORK", "CANCELLED", "ALREADY_REGISTERED", "LESSONS_FULL", "BAD_LESSON", "NOT_HOST"] as const;
type Code = AccountErrorCode | (typeof MORE_CODES)[number];
const isCode = (code: string): code is Code => code in ACCOUNT_ERRORS || MORE_CODES.some((c) => c === code);

/** The form fields a refusal can name (server/auth/schemas.ts parseBody): said per field outside English. */
const FIELDS = ["displayName", "email", "password", "currentPassword", "confirmEmail"] as const;
type FieldName = (typeof FIELDS)[number];
const isField = (field: string | undefined): field is FieldName => FIELDS.some((f) => f === field);

/** What to say when the refusal has no sentence of its own: the action that failed. */
export type Fallback =
  | "somethingWrong"
  | "loadAccounts"
  | "loadLessons"
  | "loadSessions"
  | "deleteLesson"
  | "exportLesson"
  | "revokeKey"
  | "startSession"
  | "loadSessionsList"
  | "exportFailed"
  | "sharing"
  | "didNotWork"
  | "signOut"
  | "reach";

/**
 * A refusal of the account, lessons or sessions API as the teacher reads it.
 * English keeps the server's own sentence (it can name the exact problem);
 * another language reads its catalog's sentence for the code, or for the
 * field a malformed form names, else the fallback.
 */
export function useAccountErrorText(): (err: unknown, fallback?: Fallback) => string {
  const t = useTranslations("accountErrors");
  const locale = useLocale();
  return useCallback(
    (err: unknown, fallback: Fallback = "somethingWrong") => {
      const english = locale === "en";
      if (err instanceof AccountApiError) {
        if (english) return err.message || t(`fallback.${fallback}`);
        if (err.code === "BAD_REQUEST" && isField(err.field)) return t(`field.${err.field}`);
        return isCode(err.code) ? t(`code.${err.code}`) : t(`fallback.${fallback}`);
      }
      return english && err instanceof Error && err.message ? err.message : t(`fallback.${fallback}`);
    },
    [t, locale],
  );
}

/** The sentence for an account error code carried in an address (`?error=OIDC_FAILED`), or null for anything else. */
export function useAccountCodeText(): (code: string | null) => string | null {
  const t = useTranslations("accountErrors");
  return useCallback((code: string | null) => (code && code in ACCOUNT_ERRORS && isCode(code) ? t(`code.${code}`) : null), [t]);
}
