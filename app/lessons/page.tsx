import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { AccountMenu } from "@/components/account/AccountMenu";
import { LessonsView } from "@/components/lessonLibrary/LessonsView";

export async function generateMetadata(): Promise<Metadata> {
  const [t, meta] = await Promise.all([getTranslations("library"), getTranslations("meta")]);
  return { title: t("title", { product: meta("product") }) };
}

export default async function LessonsPage() {
  const t = await getTranslations("library");
  return (
    <main className="mx-auto max-w-6xl px-5 py-8">
      <AccountMenu here="/lessons" languageSwitch />
      <h1 className="text-3xl font-bold">{t("yourLessons")}</h1>
      <LessonsView />
    </main>
  );
}
