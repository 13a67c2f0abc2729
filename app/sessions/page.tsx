import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { AccountMenu } from "@/components/account/AccountMenu";
import { SavedSessionsView } from "@/components/savedSessions/SavedSessionsView";

export async function generateMetadata(): Promise<Metadata> {
  const [t, meta] = await Promise.all([getTranslations("savedSessions"), getTranslations("meta")]);
  return { title: t("title", { product: meta("product") }) };
}

export default async function SessionsPage() {
  const t = await getTranslations("savedSessions");
  return (
    <main className="mx-auto max-w-6xl px-5 py-8">
      <AccountMenu here="/sessions" languageSwitch />
      <h1 className="text-3xl font-bold">{t("heading")}</h1>
      <SavedSessionsView />
    </main>
  );
}
