#!/usr/bin/env bash
# docker-up.sh — make a Docker engine and co's sandbox image available (for tests and e2e).
#
# Usage: scripts/docker-up.sh [IMAGE]        (IMAGE defaults to co-cli-sandbox)
#
# If `docker info` already works, the running engine is used as is. Otherwise (as root) docker.io and
# debootstrap are installed from Debian if missing and dockerd is started in the background with
#   dockerd --storage-driver=vfs --iptables=false --bridge=none
# (log: /tmp/co-cli-dockerd.log, pidfile: /run/co-cli-dockerd.pid). A marker file
# (/run/co-cli-dockerd.started) records that this script started it, so scripts/docker-down.sh stops
# only that dockerd. Finally the sandbox image is built with scripts/build-sandbox-image.sh if absent.
# Idempotent.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
IMAGE=${1:-co-cli-sandbox}
PIDFILE=/run/co-cli-dockerd.pid
MARKER=${CO_DOCKERD_MARKER:-/run/co-cli-dockerd.started} # overridable for the scripts' own tests
LOG=/tmp/co-cli-dockerd.log
WAIT=60

say() { printf '[docker-up] %s\n' "$*"; }
die() { printf '[docker-up] error: %s\n' "$*" >&2; exit 1; }

engine_ok() { command -v docker >/dev/null && docker info >/dev/null 2>&1; }

if engine_ok; then
	say "Docker engine already reachable ($(docker version --format '{{.Server.Version}}' 2>/dev/null || echo '?')); not starting one"
else
	[[ $EUID -eq 0 ]] || die "no Docker engine reachable and not root: start Docker yourself, or rerun as root"
	missing=()
	command -v dockerd >/dev/null || missing+=(docker.io)
	command -v debootstrap >/dev/null || missing+=(debootstrap)
	if ((${#missing[@]})); then
		say "installing ${missing[*]} (apt-get update first)"
		apt-get update >/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null
	fi
	command -v docker >/dev/null || die "docker CLI still missing after installing docker.io"

	if [[ -f $PIDFILE ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
		say "dockerd (pid $(cat "$PIDFILE")) is running but not answering yet; waiting for it"
	else
		say "starting dockerd --storage-driver=vfs --iptables=false --bridge=none (log: $LOG)"
		rm -f "$PIDFILE"
		setsid nohup dockerd --storage-driver=vfs --iptables=false --bridge=none \
			--pidfile "$PIDFILE" >>"$LOG" 2>&1 </dev/null &
		echo $! >"$MARKER"
	fi

	start=$SECONDS
	until engine_ok; do
		if ((SECONDS - start >= WAIT)); then
			tail -n 20 "$LOG" >&2 || true
			die "dockerd did not answer within ${WAIT}s (log: $LOG)"
		fi
		if [[ -f $MARKER ]] && ! kill -0 "$(cat "$MARKER")" 2>/dev/null; then
			tail -n 20 "$LOG" >&2 || true
			rm -f "$MARKER"
			die "dockerd exited during startup (log: $LOG)"
		fi
		sleep 0.5
	done
	say "dockerd answers after $((SECONDS - start))s"
	# Record dockerd's own pid (from its pidfile) in case setsid had to fork.
	if [[ -f $MARKER && -s $PIDFILE ]]; then cp "$PIDFILE" "$MARKER"; fi
fi

if docker image inspect "$IMAGE" >/dev/null 2>&1; then
	say "sandbox image $IMAGE present"
else
	say "sandbox image $IMAGE missing; building it"
	[[ $EUID -eq 0 ]] || die "building $IMAGE needs root: sudo $HERE/build-sandbox-image.sh $IMAGE"
	"$HERE/build-sandbox-image.sh" "$IMAGE"
fi
say "ready: docker engine up, image $IMAGE available"
