import { SignInView } from "@/components/account/SignInView";
import { safeNextPath } from "@/lib/account/rest";

export const metadata = { title: "Sign in · Dynamic provisioning, live" };

export default async function SignIn({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const next = safeNextPath(typeof params.next === "string" ? params.next : null);
  return (
    <main className="mx-auto max-w-5xl px-5 py-8">
      <p>
        <a href="/" className="text-sky-300 underline">
          Home
        </a>
      </p>
      <h1 className="mt-2 text-3xl font-bold">Sign in as a teacher</h1>
      <p className="mt-2 max-w-2xl text-slate-300">Your lessons and saved sessions will follow you to any browser you sign in on.</p>
      <SignInView next={next} errorCode={typeof params.error === "string" ? params.error : null} />
    </main>
  );
}
