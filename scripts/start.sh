#!/usr/bin/env bash
# `npm start`: the coordinator on SQLite under ./data plus a local runner registered to it.
# Running needs git (and Node.js); nothing else is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v git >/dev/null || bash scripts/debian-packages.sh "npm start" git
bash scripts/npm-deps.sh
bash scripts/build.sh
exec ./bin/coordinator start "$@"
