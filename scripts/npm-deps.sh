#!/usr/bin/env bash
# Installs the npm packages of package-lock.json (npm ci) when node_modules is missing or older than the lock file.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=node_modules/.gantry-installed
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  # Native modules (better-sqlite3) build against the headers Debian's nodejs installs, instead
  # of downloading Node's headers from nodejs.org (unreachable here), for every user.
  if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node_api.h ] && [ "$(command -v node)" = /usr/bin/node ]; then
    export npm_config_nodedir=/usr
  fi
  npm ci --no-audit --no-fund
  touch "$stamp"
fi
