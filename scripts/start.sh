#!/usr/bin/env bash
# `npm start`: Gantry on its embedded defaults (coordinator on SQLite under ./data).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/build.sh
exec ./bin/coordinator serve "$@"
