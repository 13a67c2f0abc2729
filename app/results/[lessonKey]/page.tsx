import { AccountMenu } from "@/components/account/AccountMenu";
import { ResultsView } from "@/components/assignments/ResultsView";

export const metadata = { title: "Results · Dynamic provisioning, live" };

export default async function ResultsPage({ params }: { params: Promise<{ lessonKey: string }> }) {
  const { lessonKey } = await params;
  return (
    <main className="mx-auto max-w-6xl px-5 py-8">
      <AccountMenu here={`/results/${lessonKey}`} />
      <a href="/assignments" className="text-sky-200 underline">
        ← Assignments
      </a>
      <ResultsView lessonKey={decodeURIComponent(lessonKey)} />
    </main>
  );
}
