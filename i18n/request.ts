import { cookies, headers } from "next/headers";
import { getRequestConfig } from "next-intl/server";
import { DEFAULT_LOCALE, LOCALE_COOKIE, PSEUDO_LOCALE, isAppLocale, isShippedLocale, resolveLocale, type ShippedLocale } from "./locales";
import { pseudoCatalog } from "./pseudo";
import type en from "../messages/en.json";

/**
 * next-intl's request configuration, without i18n routing: the locale is the
 * phone's (its switch's cookie, else its Accept-Language, else English), so
 * every link the class shares stays one URL for every language.
 */

type Messages = typeof en;

/** One import per catalog, so the bundler knows each file and a request loads only its own. */
const CATALOGS: Record<ShippedLocale, () => Promise<{ default: Messages }>> = {
  en: () => import("../messages/en.json"),
  de: () => import("../messages/de.json"),
  fr: () => import("../messages/fr.json"),
  es: () => import("../messages/es.json"),
  "pt-BR": () => import("../messages/pt-BR.json"),
  ja: () => import("../messages/ja.json"),
  "zh-CN": () => import("../messages/zh-CN.json"),
  ar: () => import("../messages/ar.json"),
};

let pseudo: Messages | null = null;

async function messagesFor(locale: string): Promise<Messages> {
  if (locale === PSEUDO_LOCALE) {
    // Same keys as English by construction: only the text of each message changes.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
    pseudo ??= pseudoCatalog((await CATALOGS.en()).default) as Messages;
    return pseudo;
  }
  return (await CATALOGS[isShippedLocale(locale) ? locale : DEFAULT_LOCALE]()).default;
}

export default getRequestConfig(async ({ locale: asked }) => {
  // An explicit locale (getTranslations({ locale })) wins: the console will render the projector's choice that way.
  const locale = isAppLocale(asked)
    ? asked
    : resolveLocale((await cookies()).get(LOCALE_COOKIE)?.value, (await headers()).get("accept-language"));
  return { locale, messages: await messagesFor(locale) };
});
