import { StudentView } from "@/components/student/StudentView";
import { NICKNAME_MAX, cleanText, normalizeRoomCode, safeDecode } from "@/lib/protocol/wire";

export const metadata = { title: "Join · Dynamic provisioning, live" };

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
