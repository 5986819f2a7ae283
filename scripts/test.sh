#!/usr/bin/env bash
# The test command (README): sets up what the tests need (scripts/test-setup.sh), then runs
# every test on SQLite and the storage and API tests again on a throw-away PostgreSQL, in one
# run whose processes share the machine (scripts/test-batches.mjs).
# Usage: npm test               everything
#        npm test -- PATH...    only the test files under these paths, on SQLite
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/test-setup.sh
bash scripts/build.sh   # the CLI tests start bin/*, which run the compiled dist/
if [ $# -gt 0 ]; then exec bash scripts/run-tests.sh "$@"; fi
echo "== tests: all on SQLite, and the storage and API tests on PostgreSQL too, in one run"
bash scripts/with-postgres.sh bash scripts/run-tests.sh --postgres test/coordinator test/storage/sql test/web/sign-in.test.ts test/web/pipeline-pages.test.ts -- test
