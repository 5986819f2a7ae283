#!/usr/bin/env bash
# Runs the test files under the given paths (default: test) with node:test, two files at a time,
# on their compiled copies (scripts/build-tests.sh compiles them first).
# GANTRY_TEST_DATABASE_URL=postgres://... runs the storage and API tests on PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build-tests.sh
mapfile -t files < <(bash scripts/list-tests.sh "$@" | sed 's/\.ts$/.js/')
# A test that hangs (say, on a Docker engine that died) fails after 10 minutes instead of holding CI.
exec node --test --test-concurrency=2 --test-timeout=600000 \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=./scripts/slowest-files.mjs --test-reporter-destination=stdout "${files[@]}"
