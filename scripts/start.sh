#!/usr/bin/env bash
# `npm start`: the coordinator on SQLite under ./data plus a local runner registered to it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/build.sh
exec ./bin/coordinator start "$@"
