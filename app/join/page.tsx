import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { LanguageSwitch } from "@/components/i18n/LanguageSwitch";
import { JoinForm } from "@/components/landing/StartOrJoin";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("meta"))("joinClass") };
}

export default async function JoinPage() {
  const t = await getTranslations("landing");
  return (
    <main className="mx-auto flex min-h-screen max-w-md flex-col justify-center px-4 py-8">
      <h1 className="sr-only">{t("joinPageHeading")}</h1>
      <div className="mb-3 flex justify-end">
        <LanguageSwitch />
      </div>
      <JoinForm />
    </main>
  );
}
