#!/usr/bin/env bash
# Installs the Debian packages named in the arguments that are missing, or says in one line
# what to install and exits 1 when this process cannot (not root, no apt-get, no package source).
# Usage: debian-packages.sh WHO PACKAGE...   (WHO names the command that needs them, for the message)
set -euo pipefail
who=$1; shift
missing=()
for pkg in "$@"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

hint="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "$who needs the Debian packages ${missing[*]}: install them as root ($hint), or run $who as root" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
echo "$who: installing Debian packages: ${missing[*]}" >&2
# A fresh machine may have no package lists yet; refresh them once before installing.
if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
  apt-get update -qq >/dev/null 2>&1 || true
  if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>/tmp/gantry-apt.err; then
    echo "$who needs the Debian packages ${missing[*]}, and apt-get could not install them ($(tail -n 1 /tmp/gantry-apt.err)): check /etc/apt/sources.list, then $hint" >&2
    exit 1
  fi
fi
