import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { ProjectorView } from "@/components/projector/ProjectorView";
import { normalizeRoomCode, safeDecode } from "@/lib/protocol/wire";

export async function generateMetadata(): Promise<Metadata> {
  const [t, meta] = await Promise.all([getTranslations("projector"), getTranslations("meta")]);
  return { title: t("pageTitle", { product: meta("product") }) };
}

export default async function PresentPage({ params }: { params: Promise<{ code: string }> }) {
  const { code } = await params;
  return <ProjectorView code={normalizeRoomCode(safeDecode(code))} />;
}
