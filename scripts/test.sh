#!/usr/bin/env bash
# The test command (README): sets up what the tests need (scripts/test-setup.sh), then runs
# every test on SQLite and the storage and API tests again on a throw-away PostgreSQL.
# Usage: npm test               everything
#        npm test -- PATH...    only the test files under these paths, on SQLite
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/test-setup.sh
bash scripts/build.sh   # the CLI tests start bin/*, which run the compiled dist/
if [ $# -gt 0 ]; then exec bash scripts/run-tests.sh "$@"; fi
echo "== tests (SQLite)"
bash scripts/run-tests.sh test
echo "== storage and API tests (PostgreSQL)"
bash scripts/with-postgres.sh bash scripts/run-tests.sh test/coordinator test/storage/sql
