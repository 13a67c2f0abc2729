import { ProjectorView } from "@/components/projector/ProjectorView";
import { normalizeRoomCode, safeDecode } from "@/lib/protocol/wire";

export const metadata = { title: "Projector · Dynamic provisioning, live" };

export default async function PresentPage({ params }: { params: Promise<{ code: string }> }) {
  const { code } = await params;
  return <ProjectorView code={normalizeRoomCode(safeDecode(code))} />;
}
