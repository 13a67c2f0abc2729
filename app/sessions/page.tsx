import { AccountMenu } from "@/components/account/AccountMenu";
import { SavedSessionsView } from "@/components/savedSessions/SavedSessionsView";

export const metadata = { title: "Saved sessions · Dynamic provisioning, live" };

export default function SessionsPage() {
  return (
    <main className="mx-auto max-w-6xl px-5 py-8">
      <AccountMenu here="/sessions" />
      <h1 className="text-3xl font-bold">Saved sessions</h1>
      <SavedSessionsView />
    </main>
  );
}
