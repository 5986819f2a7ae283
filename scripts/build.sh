#!/usr/bin/env bash
# Compiles src/ to dist/ (JavaScript, .d.ts, source maps) when dist/ is missing or older than src/.
# Usage: build.sh [--force]
set -euo pipefail
cd "$(dirname "$0")/.."
# The one-file bundles of typebox, kysely and execa the sources import as #deps/* (fast when fresh).
node scripts/bundle-deps.mjs
stamp=dist/.build-stamp
# Stale when a source changed, or appeared or went (the stamp holds the list of the sources).
# Not when only the tests' compiled copies under src/ changed (scripts/build-tests.sh, which
# .ci/run runs beside this build and which has more to compile): writing them changes their
# .js files and their directories, which made npm test build dist/ a second time.
sources=$(find src -type f -not -name '*.js' | sort)
if [ "${1:-}" != --force ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sources" ] \
  && [ -z "$(find src tsconfig.json tsconfig.build.json package.json -type f -newer "$stamp" -not -name '*.js' -print -quit)" ]; then
  exit 0
fi
echo "building dist/" >&2
rm -rf dist
npx tsc -p tsconfig.build.json
# tsc rewrites relative `.ts` specifiers to `.js` in JavaScript but not in declarations.
find dist -name '*.d.ts' -print0 | xargs -0 sed -i -E "s#((from|import)\(? *['\"]\.{1,2}/[^'\"]*)\.ts(['\"])#\1.js\3#g"
# runner exec's code in one file, and the compile worker's (scripts/bundle-exec.mjs).
node scripts/bundle-exec.mjs
# The job page's client script (scripts/bundle-web-client.mjs).
node scripts/bundle-web-client.mjs dist
printf '%s\n' "$sources" > "$stamp"
