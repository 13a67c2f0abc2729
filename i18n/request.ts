import { cookies, headers } from "next/headers";
import { getRequestConfig } from "next-intl/server";
import { DEFAULT_LOCALE, LOCALE_COOKIE, PSEUDO_LOCALE, isAppLocale, isShippedLocale, resolveLocale } from "./locales";
import { pseudoCatalog } from "./pseudo";
import { loadMessages, type Messages } from "./catalogs";

export type { Messages };
/**
 * next-intl's request configuration, without i18n routing: the locale is the
 * phone's (its switch's cookie, else its Accept-Language, else English), so
 * every link the class shares stays one URL for every language.
 */

let pseudo: Messages | null = null;

async function messagesFor(locale: string): Promise<Messages> {
  if (locale === PSEUDO_LOCALE) {
    // Same keys as English by construction: only the text of each message changes.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
    pseudo ??= pseudoCatalog(await loadMessages("en")) as Messages;
    return pseudo;
  }
  return loadMessages(isShippedLocale(locale) ? locale : DEFAULT_LOCALE);
}

export default getRequestConfig(async ({ locale: asked }) => {
  // An explicit locale (getTranslations({ locale })) wins: the console will render the projector's choice that way.
  const locale = isAppLocale(asked)
    ? asked
    : resolveLocale((await cookies()).get(LOCALE_COOKIE)?.value, (await headers()).get("accept-language"));
  return { locale, messages: await messagesFor(locale) };
});
