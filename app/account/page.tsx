import { AccountPage } from "@/components/account/AccountPage";

export const metadata = { title: "Your account · Dynamic provisioning, live" };

export default async function Account({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const error = typeof params.error === "string" ? params.error : null;
  return (
    <main className="mx-auto max-w-4xl px-5 py-8">
      <p>
        <a href="/" className="text-sky-300 underline">
          Home
        </a>
      </p>
      <h1 className="mt-2 text-3xl font-bold">Your account</h1>
      <AccountPage linked={params.linked === "1"} errorCode={error} />
    </main>
  );
}
