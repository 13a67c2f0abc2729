import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { AccountPage } from "@/components/account/AccountPage";
import { LanguageSwitch } from "@/components/i18n/LanguageSwitch";

export async function generateMetadata(): Promise<Metadata> {
  const [t, meta] = await Promise.all([getTranslations("account.page"), getTranslations("meta")]);
  return { title: t("title", { product: meta("product") }) };
}

export default async function Account({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const error = typeof params.error === "string" ? params.error : null;
  const t = await getTranslations("account.page");
  return (
    <main className="mx-auto max-w-4xl px-5 py-8">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <a href="/" className="text-sky-300 underline">
          {t("home")}
        </a>
        <LanguageSwitch />
      </div>
      <h1 className="mt-2 text-3xl font-bold">{t("heading")}</h1>
      <AccountPage linked={params.linked === "1"} errorCode={error} />
    </main>
  );
}
