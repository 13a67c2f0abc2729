import { SignUpView } from "@/components/account/SignUpView";
import { safeNextPath } from "@/lib/account/rest";

export const metadata = { title: "Create a teacher account · Dynamic provisioning, live" };

export default async function SignUp({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const next = safeNextPath(typeof params.next === "string" ? params.next : null);
  return (
    <main className="mx-auto max-w-5xl px-5 py-8">
      <p>
        <a href="/" className="text-sky-300 underline">
          Home
        </a>
      </p>
      <h1 className="mt-2 text-3xl font-bold">Create a teacher account</h1>
      <p className="mt-2 max-w-2xl text-slate-300">For teachers only: students join with a room code and never need an account.</p>
      <SignUpView next={next} />
    </main>
  );
}
