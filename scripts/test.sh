#!/usr/bin/env bash
# The whole suite: types, unit + socket integration tests (vitest), a two-minute
# soak of one server, a production build, then Playwright end-to-end tests in
# Debian's Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1

CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing Debian's chromium for the end-to-end tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "The end-to-end tests need Chromium at $CHROMIUM. Install it (Debian: sudo apt-get install -y chromium)"
    echo "or point CHROMIUM_PATH at a Chromium binary." >&2
    exit 1
  fi
fi

if ! command -v redis-server >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing Debian's redis-server for the scale-out tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  else
    echo "The scale-out tests start a throwaway redis-server. Install it (Debian: sudo apt-get install -y redis-server)." >&2
    exit 1
  fi
fi

echo "== typecheck"
npx tsc --noEmit

echo "== lint (ESLint) and format (Prettier)"
npx eslint .
npx prettier --check "**/*.{ts,tsx,mjs,mts,js,css,json}"

echo "== unit and socket integration tests"
npx vitest run

# The server runs without the Next build (SERVE_PAGES=0), so the soak goes before it. Two minutes of classes coming
# and going; it fails on a refused or unanswered command or vote, or memory not back to its baseline at the end.
echo "== soak, two minutes (npm run soak -- --minutes=2; an hour without the flag)"
npm run --silent soak -- --minutes=2

echo "== production build"
npx next build

echo "== end-to-end tests (Playwright, $CHROMIUM)"
npx playwright test
