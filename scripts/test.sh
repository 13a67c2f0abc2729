#!/usr/bin/env bash
# The whole suite: a two-minute soak of one server (in the background), types,
# lint, a production build, unit + socket integration tests (vitest), then
# Playwright end-to-end tests in Debian's Chromium.
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

# The soak (two minutes of classes coming and going; it fails on a refused or unanswered command or vote, or memory
# not back to its baseline at the end) mostly waits on its clients' timers: it runs in the background while the
# types, lint and the production build use the cores. Its server runs without the Next build (SERVE_PAGES=0).
echo "== soak, two minutes, in the background (npm run soak -- --minutes=2; an hour without the flag)"
soak_log="$(mktemp)"
npm run --silent soak -- --minutes=2 >"$soak_log" 2>&1 &
soak_pid=$!
trap 'kill "$soak_pid" 2>/dev/null || true; rm -f "$soak_log"' EXIT

echo "== typecheck"
npx tsc --noEmit

echo "== lint (ESLint) and format (Prettier)"
npx eslint .
npx prettier --check "**/*.{ts,tsx,mjs,mts,js,css,json}"

echo "== production build"
npx next build

echo "== soak (started above)"
soak_status=0
wait "$soak_pid" || soak_status=$?
cat "$soak_log"
if [ "$soak_status" -ne 0 ]; then
  echo "The soak failed (exit $soak_status)." >&2
  exit "$soak_status"
fi

echo "== unit and socket integration tests"
npx vitest run

echo "== end-to-end tests (Playwright, $CHROMIUM)"
npx playwright test
