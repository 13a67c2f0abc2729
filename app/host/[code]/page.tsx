import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { HostConsole } from "@/components/host/HostConsole";
import { normalizeRoomCode, safeDecode } from "@/lib/protocol/wire";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations("console");
  return { title: t("metaTitle") };
}

export default async function HostPage({ params }: { params: Promise<{ code: string }> }) {
  const { code } = await params;
  return <HostConsole code={normalizeRoomCode(safeDecode(code))} />;
}
