#!/usr/bin/env bash
# Stops the dockerd that scripts/docker-up.sh started: SIGTERM, then wait (never SIGKILL).
set -euo pipefail
pid_file=/var/run/docker.pid
[ -f "$pid_file" ] || { echo "docker-down: no $pid_file, nothing to stop" >&2; exit 0; }
pid=$(cat "$pid_file")
if ! kill -0 "$pid" 2>/dev/null; then
  echo "docker-down: dockerd $pid is not running; removing the stale pid file" >&2
  rm -f "$pid_file"
  exit 0
fi
kill -TERM "$pid"
for _ in $(seq 1 240); do
  kill -0 "$pid" 2>/dev/null || { echo "docker-down: dockerd $pid stopped" >&2; exit 0; }
  sleep 0.5
done
echo "docker-down: dockerd $pid still running after 120 s (left alone, not killed)" >&2
exit 1
