import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { AccountMenu } from "@/components/account/AccountMenu";
import { AssignmentProgressView } from "@/components/assignments/AssignmentProgressView";

export async function generateMetadata(): Promise<Metadata> {
  const [t, meta] = await Promise.all([getTranslations("assignments.progress"), getTranslations("meta")]);
  return { title: t("title", { product: meta("product") }) };
}

export default async function AssignmentProgressPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const t = await getTranslations("assignments.progress");
  return (
    <main className="mx-auto max-w-6xl px-5 py-8">
      <AccountMenu here={`/assignments/${id}`} languageSwitch />
      <a href="/assignments" className="text-sky-200 underline">
        {t("back")}
      </a>
      <AssignmentProgressView id={id} />
    </main>
  );
}
