import { JoinForm } from "@/components/landing/StartOrJoin";

export const metadata = { title: "Join a class · Dynamic provisioning, live" };

export default function JoinPage() {
  return (
    <main className="mx-auto flex min-h-screen max-w-md flex-col justify-center px-4 py-8">
      <h1 className="sr-only">Join a class</h1>
      <JoinForm />
    </main>
  );
}
