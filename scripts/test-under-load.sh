#!/usr/bin/env bash
# Shows that co's tests do not race the clock: runs them while two busy
# loops (`yes > /dev/null`) take two cores. First the packages whose tests
# used to assert on wall-clock windows, `go test -race -count=20` each,
# then the whole suite (scripts/test.sh) N times in a row. Stops at the
# first failure and prints a summary either way.
#
#   scripts/test-under-load.sh [N]      N: whole-suite runs, default 3
#
#   COUNT=5 scripts/test-under-load.sh 1    fewer repeats of the packages
#   PKGS="./sandbox/ ./ui/tui/" scripts/test-under-load.sh 0
#                                           only those packages, no suite run
#
# scripts/test.sh installs what the suite needs (as root) and starts a
# Docker engine when none runs; the packages below need the same, so run
# scripts/test.sh once first on a fresh machine, or set CO_TEST_NO_DOCKER=1.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-3}
count=${COUNT:-20}
# The packages whose tests asserted on wall-clock windows or slept and then
# asserted (issue 28): now synctest, an injected clock, order and events.
default_pkgs=(
	./agent/
	./agent/llmtest/
	./extensions/
	./memory/
	./sandbox/
	./telemetry/
	./tools/google/
	./tools/internal/pathsafe/
	./tools/mcp/
	./tools/memory/
	./tools/notes/
	./tools/shell/
	./tools/slack/
	./tools/todo/
	./tools/web/
	./ui/tui/
)
read -r -a pkgs <<<"${PKGS:-${default_pkgs[*]}}"

say() { printf '[load] %s\n' "$*"; }

if [[ ! $runs =~ ^[0-9]+$ || ! $count =~ ^[1-9][0-9]*$ ]]; then
	echo "usage: $0 [N]  (N whole-suite runs, a number; COUNT a number ≥ 1)" >&2
	exit 2
fi

# The load: two busy loops, ended however this script ends.
hogs=()
stop_hogs() {
	for pid in "${hogs[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	wait "${hogs[@]}" 2>/dev/null || true
}
trap stop_hogs EXIT
trap 'exit 130' INT TERM
for _ in 1 2; do
	yes >/dev/null &
	hogs+=($!)
done
say "load: busy loops ${hogs[*]} on $(nproc) cores"

# The MCP tests need the reference server scripts/test.sh installs.
export CO_TEST_MCP_EVERYTHING=${CO_TEST_MCP_EVERYTHING:-${CO_TEST_NPM_CACHE:-$HOME/.cache/co-test/npm}/node_modules/@modelcontextprotocol/server-everything/dist/index.js}

summary=()
status=0
started=$SECONDS

say "go test -race -count=$count ${pkgs[*]}"
t0=$SECONDS
if go test -race -count="$count" -timeout 60m "${pkgs[@]}"; then
	summary+=("packages -count=$count: green ($((SECONDS - t0)) s)")
else
	summary+=("packages -count=$count: RED ($((SECONDS - t0)) s)")
	status=1
fi

if ((status == 0)); then
	for ((i = 1; i <= runs; i++)); do
		say "scripts/test.sh, run $i of $runs"
		t0=$SECONDS
		if scripts/test.sh; then
			summary+=("whole suite, run $i of $runs: green ($((SECONDS - t0)) s)")
		else
			summary+=("whole suite, run $i of $runs: RED ($((SECONDS - t0)) s), stopped")
			status=1
			break
		fi
	done
fi

say "summary (under two busy loops, $((SECONDS - started)) s in all):"
for line in "${summary[@]}"; do
	say "  $line"
done
if ((status == 0)); then
	say "all green"
else
	say "a failure: see its output above"
fi
exit "$status"
