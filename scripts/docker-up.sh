#!/usr/bin/env bash
# Brings up a Docker engine on this machine without systemd, and builds the local job images
# the runner's docker tests use (no registry is reachable here).
#   - installs Debian's docker.io (plus busybox-static and mmdebstrap) when missing
#     (scripts/debian-packages.sh: one line and exit 1 when it cannot);
#   - starts dockerd in the background (a stale pid file or socket is removed first) and
#     polls `docker info` until it answers;
#   - gantry/busybox:latest: busybox-static unpacked into a rootfs and `docker import`ed (2 MB);
#   - gantry/debian-git:bookworm: mmdebstrap of bookworm with git, bash and CA certificates
#     from this machine's Debian mirror, `docker import`ed (~2 min, ~160 MB; built once, reused).
# Prints `DOCKER_HOST=unix:///var/run/docker.sock` on success. Stop with scripts/docker-down.sh.
# Environment: GANTRY_DOCKER_SKIP_DEBIAN=1 skips the Debian image.
set -euo pipefail

state_dir=/var/run/gantry-docker
pid_file=/var/run/docker.pid
socket=/var/run/docker.sock
log_file=/var/log/gantry-dockerd.log
# /usr/local/bin/docker may be a client only; the engine's own client lives in /usr/bin.
docker_cli=/usr/bin/docker

log() { echo "docker-up: $*" >&2; }

install_missing() {
  local want=(docker.io busybox-static)
  [ "${GANTRY_DOCKER_SKIP_DEBIAN:-}" = 1 ] || want+=(mmdebstrap)
  bash "$(dirname "$0")/debian-packages.sh" docker-up "${want[@]}"
}

engine_answers() { timeout 10 "$docker_cli" info >/dev/null 2>&1; }

start_engine() {
  if engine_answers; then
    log "engine already running"
    return
  fi
  if [ -f "$pid_file" ]; then
    local old
    old=$(cat "$pid_file" 2>/dev/null || true)
    if [ -n "$old" ] && kill -0 "$old" 2>/dev/null; then
      log "dockerd $old is running but does not answer yet"
    else
      log "removing stale $pid_file"
      rm -f "$pid_file"
    fi
  fi
  if [ "$(id -u)" != 0 ]; then
    log "no Docker engine answers at $socket, and starting one needs root: run scripts/docker-up.sh as root (or start dockerd and add this user to the docker group)"
    exit 1
  fi
  if [ ! -f "$pid_file" ]; then
    [ -S "$socket" ] && { log "removing stale $socket"; rm -f "$socket"; }
    rm -f /var/run/docker/containerd/containerd.pid 2>/dev/null || true
    mkdir -p "$state_dir"
    log "starting dockerd (log: $log_file)"
    setsid nohup dockerd --pidfile "$pid_file" -H "unix://$socket" >"$log_file" 2>&1 < /dev/null &
  fi
  for _ in $(seq 1 120); do
    engine_answers && { log "engine ready"; return; }
    sleep 0.5
  done
  log "dockerd did not answer within 60 s; last log lines:"
  tail -n 20 "$log_file" >&2 || true
  exit 1
}

image_exists() { "$docker_cli" image inspect "$1" >/dev/null 2>&1; }

build_busybox() {
  local tag=gantry/busybox:latest
  image_exists "$tag" && { log "$tag present"; return; }
  local root
  root=$(mktemp -d /tmp/gantry-busybox.XXXXXX)
  mkdir -p "$root/bin" "$root/tmp" "$root/etc" "$root/root"
  cp /bin/busybox "$root/bin/busybox"
  # Relative links: `busybox --install -s` would point them at this host's temporary path.
  for applet in $(/bin/busybox --list); do
    [ "$applet" = busybox ] || ln -s busybox "$root/bin/$applet"
  done
  chmod 1777 "$root/tmp"
  echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
  echo 'root:x:0:' > "$root/etc/group"
  tar -C "$root" -c . | "$docker_cli" import -c 'CMD ["/bin/sh"]' -c 'ENV PATH=/bin' - "$tag" >/dev/null
  rm -rf "$root"
  log "built $tag"
}

debian_mirror() {
  local uri
  uri=$(grep -hE '^\s*URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v security | grep -E '/debian/?$' | head -1 || true)
  [ -n "$uri" ] || uri=$(grep -hE '^\s*deb\s' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '{print $2}' | grep -v security | grep -E '/debian/?$' | head -1 || true)
  echo "${uri:-http://deb.debian.org/debian}"
}

build_debian() {
  local tag=gantry/debian-git:bookworm
  [ "${GANTRY_DOCKER_SKIP_DEBIAN:-}" = 1 ] && return
  image_exists "$tag" && { log "$tag present"; return; }
  local mirror
  mirror=$(debian_mirror)
  log "building $tag from $mirror (about 2 minutes)"
  mmdebstrap --quiet --variant=apt --include=git,bash,ca-certificates bookworm - "$mirror" \
    | "$docker_cli" import -c 'CMD ["/bin/bash"]' -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' - "$tag" >/dev/null
  log "built $tag"
}

install_missing
start_engine
build_busybox
build_debian
echo "DOCKER_HOST=unix://$socket"
