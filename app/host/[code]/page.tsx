import { HostConsole } from "@/components/host/HostConsole";
import { normalizeRoomCode, safeDecode } from "@/lib/protocol/wire";

export const metadata = { title: "Teacher console · Dynamic provisioning, live" };

export default async function HostPage({ params }: { params: Promise<{ code: string }> }) {
  const { code } = await params;
  return <HostConsole code={normalizeRoomCode(safeDecode(code))} />;
}
