/** @type {import('next').NextConfig} */
module.exports = {
  reactStrictMode: true,
  poweredByHeader: false,
  // `npm test` type-checks the whole project once (tsc --noEmit, tests and server included) before it builds;
  // the build checking the same files again cost about 40 s of every run.
  typescript: { ignoreBuildErrors: true },
};
