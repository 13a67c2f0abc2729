import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { AccountMenu } from "@/components/account/AccountMenu";
import { ResultsView } from "@/components/assignments/ResultsView";

export async function generateMetadata(): Promise<Metadata> {
  const [t, meta] = await Promise.all([getTranslations("results"), getTranslations("meta")]);
  return { title: t("title", { product: meta("product") }) };
}

export default async function ResultsPage({ params }: { params: Promise<{ lessonKey: string }> }) {
  const { lessonKey } = await params;
  const t = await getTranslations("results");
  return (
    <main className="mx-auto max-w-6xl px-5 py-8">
      <AccountMenu here={`/results/${lessonKey}`} languageSwitch />
      <a href="/assignments" className="text-sky-200 underline">
        {t("back")}
      </a>
      <ResultsView lessonKey={decodeURIComponent(lessonKey)} />
    </main>
  );
}
