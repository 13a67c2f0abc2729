// Next reads this file as CommonJS; the plugin ships a CommonJS build for it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const createNextIntlPlugin = require("next-intl/plugin");

// Interface languages without i18n routing: i18n/request.ts picks each request's locale (docs/i18n.md).
const withNextIntl = createNextIntlPlugin("./i18n/request.ts");

/** @type {import('next').NextConfig} */
module.exports = withNextIntl({
  reactStrictMode: true,
  poweredByHeader: false,
  // `npm test` type-checks the whole project once (tsc --noEmit, tests and server included) before it builds;
  // the build checking the same files again cost about 40 s of every run.
  typescript: { ignoreBuildErrors: true },
});
