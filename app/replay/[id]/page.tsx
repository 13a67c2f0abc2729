import { ReplayView } from "@/components/replay/ReplayView";
import { safeDecode } from "@/lib/protocol/wire";

export const metadata = { title: "Replay · Dynamic provisioning, live" };

export default async function ReplayPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ReplayView id={safeDecode(id)} />;
}
