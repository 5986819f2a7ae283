#!/usr/bin/env bash
# Installs the npm packages of package-lock.json (npm ci) when node_modules is missing or older than the lock file.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=node_modules/.gantry-installed
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  npm ci --no-audit --no-fund
  touch "$stamp"
fi
