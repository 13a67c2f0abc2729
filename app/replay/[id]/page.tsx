import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { ReplayView } from "@/components/replay/ReplayView";
import { safeDecode } from "@/lib/protocol/wire";

export async function generateMetadata(): Promise<Metadata> {
  const [t, meta] = await Promise.all([getTranslations("replay"), getTranslations("meta")]);
  return { title: t("pageTitle", { product: meta("product") }) };
}

export default async function ReplayPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ReplayView id={safeDecode(id)} />;
}
