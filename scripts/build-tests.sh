#!/usr/bin/env bash
# Compiles src/, test/ and bench/ to JavaScript next to their sources (gitignored), so that each test
# file's process loads plain JavaScript: loading the coordinator through the tsx loader costs
# each of the ~330 test processes of a run about 3 s more CPU than loading its compiled copy.
# Skipped when no source changed since the last build. Child processes the tests start on a
# .ts file (coordinator children, workers) still load it with tsx.
set -euo pipefail
cd "$(dirname "$0")/.."
# The one-file bundles of typebox, kysely and execa the sources import as #deps/* (fast when fresh).
node scripts/bundle-deps.mjs
# In the working tree, not node_modules: worktrees that hard-link one node_modules must not share it.
stamp=.build-tests-stamp
if [ "${1:-}" != --force ] && [ -f "$stamp" ] \
  && [ -z "$(find src test bench tsconfig.json tsconfig.test.json package.json -newer "$stamp" -not -name '*.js' -print -quit)" ]; then
  exit 0
fi
echo "compiling src/, test/ and bench/ for the tests" >&2
# Compiled copies whose source is gone would still be found by the test list or an import.
find src test bench -name '*.js' -not -path 'test/fixtures/*' -print0 | while IFS= read -r -d '' compiled; do
  [ -f "${compiled%.js}.ts" ] || rm -f "$compiled"
done
npx tsc -p tsconfig.test.json
# The job page's client script, beside its sources (served by coordinators the tests start).
node scripts/bundle-web-client.mjs src
touch "$stamp"
