"use client";

import { useTranslations } from "next-intl";
import { useAccountState } from "@/components/account/useAccountState";
import { LessonsList, NewLessonLinks } from "./LessonsList";
import { MyLessons } from "./MyLessons";

/**
 * The lessons page: signed in, the account's lessons (and, for the
 * administrator, every lesson); signed out, those this browser's keys open.
 */
export function LessonsView() {
  const t = useTranslations("library");
  const [load] = useAccountState();
  if (load.status === "loading") return <p className="mt-6">{t("loading")}</p>;
  const account = load.status === "ready" ? load.state.account : null;
  if (!account) return <LessonsList />;
  return (
    <div className="mt-6">
      <NewLessonLinks />
      <MyLessons />
      {account.admin && <MyLessons all />}
    </div>
  );
}
