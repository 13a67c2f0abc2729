"use client";

import { useLocale, useTranslations } from "next-intl";
import { useCallback } from "react";
import type { ProtocolError } from "@/lib/errorCodes";

/**
 * A refusal as the student reads it. The server speaks English and sends a
 * code with every refusal (lib/errorCodes.ts); English keeps the server's
 * own sentence (it can be more precise than the code's), every other
 * language reads the code's sentence from its catalog.
 */
export function useErrorText(): (error: ProtocolError) => string {
  const t = useTranslations("errors");
  const locale = useLocale();
  return useCallback(
    (error: ProtocolError) => {
      if (locale === "en" && error.message) return error.message;
      return t.has(error.code) ? t(error.code) : error.message || t("INTERNAL");
    },
    [t, locale],
  );
}
