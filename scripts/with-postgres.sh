#!/usr/bin/env bash
# Runs a command with a throw-away PostgreSQL cluster; GANTRY_TEST_DATABASE_URL points at it.
# Usage: with-postgres.sh COMMAND [ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/debian-packages.sh with-postgres.sh postgresql
bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
cluster=$(mktemp -d /tmp/gantry-pg.XXXXXX)
port=$(( 40000 + RANDOM % 20000 ))
as_pg=()
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
  chown postgres "$cluster"
  as_pg=(runuser -u postgres --)
fi
stop() { "${as_pg[@]}" "$bindir/pg_ctl" -D "$cluster/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$cluster"; }
trap stop EXIT
"${as_pg[@]}" "$bindir/initdb" -D "$cluster/data" -U postgres --auth=trust -E UTF8 >/dev/null
"${as_pg[@]}" "$bindir/pg_ctl" -D "$cluster/data" -l "$cluster/log" -w \
  -o "-p $port -k $cluster -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" start >/dev/null
export GANTRY_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
echo "PostgreSQL throw-away cluster on port $port" >&2
"$@"
