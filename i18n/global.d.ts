import type { AppLocale } from "./locales";
import type { Messages } from "./request";

// Keys and locales checked by the compiler: t("poll.closed") with a typo does not build.
declare module "next-intl" {
  interface AppConfig {
    Locale: AppLocale;
    Messages: Messages;
  }
}
