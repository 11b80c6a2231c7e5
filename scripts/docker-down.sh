#!/usr/bin/env bash
# docker-down.sh — stop the dockerd that scripts/docker-up.sh started, and nothing else.
#
# Usage: scripts/docker-down.sh
#
# Reads the marker /run/co-cli-dockerd.started written by docker-up.sh. Without it, a running Docker
# engine belongs to someone else and is left alone. The marker may be older than the caller (left by an
# earlier docker-up.sh): a caller that only wants to undo its own docker-up.sh must first check that
# this docker-up.sh started an engine (scripts/test.sh does). Containers and images are kept (they live in
# /var/lib/docker). Idempotent.
set -euo pipefail

MARKER=${CO_DOCKERD_MARKER:-/run/co-cli-dockerd.started} # overridable for the scripts' own tests
PIDFILE=/run/co-cli-dockerd.pid
WAIT=30

say() { printf '[docker-down] %s\n' "$*"; }
# alive PID: the process exists and is not a zombie waiting for a parent that does not reap. The state
# is the first field after the last ')' of /proc/PID/stat: the name before it may hold spaces, ')' and
# newlines (a reused pid can be anything's).
alive() {
	kill -0 "$1" 2>/dev/null || return 1
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	s=${s##*)}
	read -r s _ <<<"$s"
	[[ $s != Z ]]
}
die() { printf '[docker-down] error: %s\n' "$*" >&2; exit 1; }

if [[ ! -f $MARKER ]]; then
	say "no dockerd started by docker-up.sh (no $MARKER); nothing to stop"
	exit 0
fi
pid=$(cat "$MARKER")
if ! [[ $pid =~ ^[0-9]+$ ]] || ! alive "$pid"; then
	say "dockerd (pid ${pid:-?}) is no longer running; removing stale marker"
	rm -f "$MARKER"
	exit 0
fi
# The pid may have been reused since docker-up ran: stop it only if it is still a dockerd.
if [[ $(cat "/proc/$pid/comm" 2>/dev/null) != dockerd ]]; then
	say "pid $pid is not dockerd any more; removing stale marker"
	rm -f "$MARKER"
	exit 0
fi

say "stopping dockerd (pid $pid) with SIGTERM"
kill -TERM "$pid"
start=$SECONDS
while alive "$pid"; do
	((SECONDS - start < WAIT)) || die "dockerd (pid $pid) still running after ${WAIT}s; not killing it harder"
	sleep 0.5
done
rm -f "$MARKER" "$PIDFILE"
say "dockerd stopped after $((SECONDS - start))s"
