#!/usr/bin/env bash
# Runs the test files under the given paths (default: test) with node:test on their compiled
# copies (scripts/build-tests.sh compiles them first): two processes at a time, each running a
# batch of files or one file alone (scripts/test-batches.mjs).
# GANTRY_TEST_DATABASE_URL=postgres://... runs the storage and API tests on PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build-tests.sh
mapfile -t files < <(bash scripts/list-tests.sh "$@" | sed 's/\.ts$/.js/')
exec node scripts/test-batches.mjs "${files[@]}"
