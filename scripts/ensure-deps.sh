#!/usr/bin/env bash
# Installs what Gantry needs on a fresh Debian machine: Debian packages via apt-get, npm packages via npm ci.
# Usage: ensure-deps.sh [postgres]
set -euo pipefail
cd "$(dirname "$0")/.."

want_pkgs=()
command -v git >/dev/null || want_pkgs+=(git)
command -v bzip2 >/dev/null || want_pkgs+=(bzip2)
command -v ssh-keygen >/dev/null || want_pkgs+=(openssh-client)
command -v gpg >/dev/null || want_pkgs+=(gnupg)
/usr/bin/python3 -c 'import gitlab' >/dev/null 2>&1 || want_pkgs+=(python3-gitlab)
if [ "${1:-}" = postgres ] && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then want_pkgs+=(postgresql); fi
if [ ${#want_pkgs[@]} -gt 0 ]; then
  echo "installing Debian packages: ${want_pkgs[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${want_pkgs[@]}" >/dev/null
fi

stamp=node_modules/.gantry-installed
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  npm ci --no-audit --no-fund
  touch "$stamp"
fi
