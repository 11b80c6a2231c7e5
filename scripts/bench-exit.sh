#!/usr/bin/env bash
# Measures what the Docker sandbox costs at both ends of a session (scripts/benchexit): the first
# command's latency from the prompt, the time from end of input to co's exit and to the container's
# removal, and `co run` with one `ls`. On the running engine (DOCKER_HOST or the default) and, with
# --overlay (as root, where the kernel mounts overlay), also on a second engine with the overlay2
# storage driver, started for the measurement in a directory of its own and stopped after it:
#   dockerd --storage-driver=overlay2 --data-root D/root --exec-root D/exec --pidfile D/pid -H unix://D/docker.sock
# into which the co-cli-sandbox image is copied (docker save | docker load).
#   scripts/bench-exit.sh [--overlay] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
overlay=
if [ "${1:-}" = --overlay ]; then
	overlay=1
	shift
fi
runs=${1:-5}
go build -o bin/co .
go run ./scripts/benchexit -co bin/co -n "$runs"
[ -n "$overlay" ] || exit 0

dir=$(mktemp -d /var/tmp/co-ovl.XXXXXX)
sock="unix://$dir/docker.sock"
stop() {
	if [ -f "$dir/pid" ]; then
		kill "$(cat "$dir/pid")" 2>/dev/null || true
		for _ in $(seq 100); do [ -f "$dir/pid" ] || break; sleep 0.2; done
	fi
	rm -rf "$dir" 2>/dev/null || { umount -R "$dir"/root/* 2>/dev/null || true; rm -rf "$dir" || true; }
}
trap stop EXIT
dockerd --storage-driver=overlay2 --data-root "$dir/root" --exec-root "$dir/exec" --pidfile "$dir/pid" \
	-H "$sock" --iptables=false --bridge=none >"$dir/log" 2>&1 &
for _ in $(seq 150); do
	DOCKER_HOST=$sock docker info >/dev/null 2>&1 && break
	sleep 0.2
done
if [ "$(DOCKER_HOST=$sock docker info --format '{{.Driver}}' 2>/dev/null)" != overlay2 ]; then
	echo "bench-exit: the overlay2 engine did not start (log below)" >&2
	cat "$dir/log" >&2
	exit 1
fi
docker save "${CO_CLI_DOCKER_IMAGE:-co-cli-sandbox}" | DOCKER_HOST=$sock docker load >/dev/null
DOCKER_HOST=$sock go run ./scripts/benchexit -co bin/co -n "$runs"
