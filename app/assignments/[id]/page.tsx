import { AccountMenu } from "@/components/account/AccountMenu";
import { AssignmentProgressView } from "@/components/assignments/AssignmentProgressView";

export const metadata = { title: "Assignment progress · Dynamic provisioning, live" };

export default async function AssignmentProgressPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <main className="mx-auto max-w-6xl px-5 py-8">
      <AccountMenu here={`/assignments/${id}`} />
      <a href="/assignments" className="text-sky-200 underline">
        ← All assignments
      </a>
      <AssignmentProgressView id={id} />
    </main>
  );
}
