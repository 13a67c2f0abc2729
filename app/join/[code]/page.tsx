import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { StudentView } from "@/components/student/StudentView";
import { NICKNAME_MAX, cleanText, normalizeRoomCode, safeDecode } from "@/lib/protocol/wire";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("meta"))("joinRoom") };
}

export default async function JoinCodePage({
  params,
  searchParams,
}: {
  params: Promise<{ code: string }>;
  searchParams: Promise<{ name?: string | string[] }>;
}) {
  const { code } = await params;
  const { name } = await searchParams;
  const initialName = typeof name === "string" ? cleanText(name, NICKNAME_MAX) : null;
  return <StudentView code={normalizeRoomCode(safeDecode(code))} initialName={initialName} />;
}
