#!/usr/bin/env bash
# The test command (README): installs what is missing, then runs every test with node:test.
# Usage: npm test [-- DIR...]   (GANTRY_TEST_DATABASE_URL=postgres://... runs storage/API tests on PostgreSQL)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/build.sh   # the CLI tests start bin/*, which run the compiled dist/
mapfile -t files < <(bash scripts/list-tests.sh "$@")
# A test that hangs (say, on a Docker engine that died) fails after 10 minutes instead of holding CI.
exec node --import tsx --test --test-concurrency=2 --test-timeout=600000 --test-reporter=spec "${files[@]}"
