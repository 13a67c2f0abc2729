import { AccountMenu } from "@/components/account/AccountMenu";
import { LessonsView } from "@/components/lessonLibrary/LessonsView";

export const metadata = { title: "Your lessons · Dynamic provisioning, live" };

export default function LessonsPage() {
  return (
    <main className="mx-auto max-w-6xl px-5 py-8">
      <AccountMenu here="/lessons" />
      <h1 className="text-3xl font-bold">Your lessons</h1>
      <LessonsView />
    </main>
  );
}
