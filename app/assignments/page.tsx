import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { AccountMenu } from "@/components/account/AccountMenu";
import { AssignmentsView } from "@/components/assignments/AssignmentsView";

export async function generateMetadata(): Promise<Metadata> {
  const [t, meta] = await Promise.all([getTranslations("assignments"), getTranslations("meta")]);
  return { title: t("title", { product: meta("product") }) };
}

export default async function AssignmentsPage() {
  const t = await getTranslations("assignments");
  return (
    <main className="mx-auto max-w-6xl px-5 py-8">
      <AccountMenu here="/assignments" languageSwitch />
      <h1 className="text-3xl font-bold">{t("heading")}</h1>
      <p className="mt-2 max-w-3xl text-slate-300">{t("lead")}</p>
      <AssignmentsView />
    </main>
  );
}
