import { SelfPacedView } from "@/components/selfPaced/SelfPacedView";

export const metadata = { title: "Assignment · Dynamic provisioning, live" };

export default async function AssignmentPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <SelfPacedView id={id} />;
}
