import { getTranslations } from "next-intl/server";
import { AccountMenu } from "@/components/account/AccountMenu";
import { LanguageSwitch } from "@/components/i18n/LanguageSwitch";
import { k8s } from "@/components/i18n/Kube";
import { StartOrJoin } from "@/components/landing/StartOrJoin";
import { CARD_INTRO, CARD_TITLE } from "@/lib/lesson/card";

const LINK = "text-sky-300 underline";

export default async function HomePage() {
  const t = await getTranslations("landing");
  return (
    <main className="mx-auto flex min-h-screen max-w-4xl flex-col justify-center gap-10 px-5 py-10">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <LanguageSwitch />
        {/* The teacher's account pages are not translated yet: marked English, so a screen reader reads them as English. */}
        <div lang="en" className="min-w-0 flex-1">
          <AccountMenu here="/" />
        </div>
      </div>
      <header>
        <p className="text-sm font-semibold uppercase tracking-widest text-sky-300">{t("kicker")}</p>
        {/* The lesson's own words: English until the lesson content is translated. */}
        <h1 lang="en" className="mt-2 text-4xl font-bold sm:text-5xl">
          {CARD_TITLE}
        </h1>
        <p className="mt-4 max-w-2xl text-lg text-slate-300">{t.rich("intro", { k8s })}</p>
        <p lang="en" className="mt-3 max-w-2xl text-slate-400">
          {CARD_INTRO}
        </p>
      </header>
      <StartOrJoin />
      <p className="text-slate-300">
        {t.rich("otherTopic", {
          new: (chunks) => (
            <a href="/lessons/edit" className={`font-semibold ${LINK}`} data-testid="new-lesson">
              {chunks}
            </a>
          ),
          lessons: (chunks) => (
            <a href="/lessons" className={LINK}>
              {chunks}
            </a>
          ),
        })}
      </p>
      <p className="text-slate-300">
        {t.rich("earlier", {
          sessions: (chunks) => (
            <a href="/sessions" className={`font-semibold ${LINK}`}>
              {chunks}
            </a>
          ),
        })}
      </p>
    </main>
  );
}
