import { AccountMenu } from "@/components/account/AccountMenu";
import { AssignmentsView } from "@/components/assignments/AssignmentsView";

export const metadata = { title: "Assignments · Dynamic provisioning, live" };

export default function AssignmentsPage() {
  return (
    <main className="mx-auto max-w-6xl px-5 py-8">
      <AccountMenu here="/assignments" />
      <h1 className="text-3xl font-bold">Assignments</h1>
      <p className="mt-2 max-w-3xl text-slate-300">
        A lesson at each student&apos;s own pace, for the student who missed the class or the one revising: the same diagram and panels,
        with a &ldquo;what happens next?&rdquo; question to answer before going on, and the misconception behind each wrong answer.
      </p>
      <AssignmentsView />
    </main>
  );
}
