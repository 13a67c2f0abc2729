import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { LanguageSwitch } from "@/components/i18n/LanguageSwitch";
import { LessonEditor } from "@/components/lessonLibrary/LessonEditor";

export async function generateMetadata(): Promise<Metadata> {
  const [t, meta] = await Promise.all([getTranslations("authoring"), getTranslations("meta")]);
  return { title: t("title", { product: meta("product") }) };
}

export default async function LessonEditPage() {
  const t = await getTranslations("authoring");
  return (
    <main className="mx-auto max-w-[1500px] px-5 py-8">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <h1 className="text-3xl font-bold">{t("heading")}</h1>
        <LanguageSwitch />
      </div>
      <LessonEditor />
    </main>
  );
}
