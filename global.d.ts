import type messages from "./messages/en.json";
import type { Locale } from "./server/i18n/locales";

// Message keys and locales are type-checked: t("jobList.heading") compiles only if en.json has it
// (tests/i18n/catalogues.test.ts keeps zh-CN.json in step with en.json).
declare module "next-intl" {
  interface AppConfig {
    Locale: Locale;
    Messages: typeof messages;
  }
}
