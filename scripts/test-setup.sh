#!/usr/bin/env bash
# Sets up what the tests need, for `npm test` and .ci/run alike: Debian packages (git and the
# tools some routes call, python3-gitlab, PostgreSQL, the Docker engine and what builds the
# local job images), npm packages, a running Docker engine with those images.
# Stops at the first thing it cannot do, with one line that says what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(git bzip2 openssh-client gnupg python3-gitlab postgresql docker.io busybox-static mmdebstrap ca-certificates nginx)
bash scripts/debian-packages.sh "npm test" "${packages[@]}"
bash scripts/npm-deps.sh
bash scripts/docker-up.sh >/dev/null
