import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { SignInView } from "@/components/account/SignInView";
import { LanguageSwitch } from "@/components/i18n/LanguageSwitch";
import { safeNextPath } from "@/lib/account/rest";

export async function generateMetadata(): Promise<Metadata> {
  const [t, meta] = await Promise.all([getTranslations("account.signIn"), getTranslations("meta")]);
  return { title: t("title", { product: meta("product") }) };
}

export default async function SignIn({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const next = safeNextPath(typeof params.next === "string" ? params.next : null);
  const t = await getTranslations("account.signIn");
  return (
    <main className="mx-auto max-w-5xl px-5 py-8">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <a href="/" className="text-sky-300 underline">
          {t("home")}
        </a>
        <LanguageSwitch />
      </div>
      <h1 className="mt-2 text-3xl font-bold">{t("heading")}</h1>
      <p className="mt-2 max-w-2xl text-slate-300">{t("lead")}</p>
      <SignInView next={next} errorCode={typeof params.error === "string" ? params.error : null} />
    </main>
  );
}
