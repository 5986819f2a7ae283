#!/usr/bin/env bash
# Runs the test files under the given paths (default: test) with node:test on their compiled
# copies (scripts/build-tests.sh compiles them first), each process a batch of files or one
# file alone (scripts/test-batches.mjs), two processes at a time.
# GANTRY_TEST_DATABASE_URL=postgres://... runs the storage and API tests on PostgreSQL.
# With `--postgres PATH... --` first (and GANTRY_TEST_DATABASE_URL set), the files under those
# paths run on PostgreSQL too, in the same run as the others on SQLite, three processes at a time.
# Usage: run-tests.sh [--postgres PATH... --] [PATH...]
set -euo pipefail
cd "$(dirname "$0")/.."
postgres_paths=()
if [ "${1:-}" = --postgres ]; then
  shift
  while [ $# -gt 0 ] && [ "$1" != -- ]; do postgres_paths+=("$1"); shift; done
  [ "${1:-}" = -- ] || { echo "run-tests.sh: --postgres PATH... must end with --" >&2; exit 2; }
  shift
fi
bash scripts/build-tests.sh
mapfile -t files < <(bash scripts/list-tests.sh "$@" | sed 's/\.ts$/.js/')
if [ ${#postgres_paths[@]} -eq 0 ]; then exec node scripts/test-batches.mjs "${files[@]}"; fi
mapfile -t postgres_files < <(bash scripts/list-tests.sh "${postgres_paths[@]}" | sed 's/\.ts$/.js/')
exec node scripts/test-batches.mjs "${files[@]}" --postgres "${postgres_files[@]}"
