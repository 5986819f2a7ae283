#!/usr/bin/env bash
# Node 20 does not expand ** in --test: list the test files ourselves.
# Usage: list-tests.sh [dir ...]  (default: test)
set -euo pipefail
dirs=("$@"); [ ${#dirs[@]} -gt 0 ] || dirs=(test)
find "${dirs[@]}" -name '*.test.ts' -not -path '*/fixtures/*' | sort
