#!/usr/bin/env bash
# Sets up what the tests need, for `npm test` and .ci/run alike: Debian packages (git and the
# tools some routes call, python3-gitlab, PostgreSQL, the Docker engine and what builds the
# local job images), npm packages, a running Docker engine with those images.
# The npm install and the Docker engine with its images (minutes each on a fresh machine)
# run side by side.
# Stops at the first thing it cannot do, with one line that says what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(git bzip2 openssh-client gnupg python3-gitlab postgresql docker.io busybox-static mmdebstrap ca-certificates nginx chromium)
bash scripts/debian-packages.sh "npm test" "${packages[@]}"
docker_log=$(mktemp)
bash scripts/docker-up.sh >/dev/null 2>"$docker_log" &
docker_pid=$!
npm_status=0
bash scripts/npm-deps.sh || npm_status=$?
docker_status=0
wait "$docker_pid" || docker_status=$?
# docker-up's progress lines, printed once it ends so they do not interleave with npm's.
cat "$docker_log" >&2
rm -f "$docker_log"
[ "$npm_status" = 0 ] && [ "$docker_status" = 0 ]
