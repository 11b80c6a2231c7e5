#!/usr/bin/env bash
# Measures co's start-up: `co version` and `co --plain` to its first prompt.
#
#   scripts/bench-startup.sh [runs]
#
# With builds to compare, measures only the full-screen chat's start-up of
# each, alternating launches in one run (ready prompt, CPU to it, peak RSS),
# this tree's build last:
#
#   scripts/bench-startup.sh 15 old=/tmp/co-ae032d7 main=/tmp/co-main
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/co .
if [ $# -gt 1 ]; then
	n=$1
	shift
	go run ./scripts/benchtui -n "$n" -compare "$(IFS=,; echo "$*"),this=bin/co"
	exit
fi
go run ./scripts/benchstartup -co bin/co -n "${1:-50}"
