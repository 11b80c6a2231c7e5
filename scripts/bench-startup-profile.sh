#!/usr/bin/env bash
# Where the full-screen chat's start-up goes, phase by phase, for builds
# launched alternately in one run: wall and CPU time from exec to main
# (package initialisation), the settings, the app, Bubble Tea's start, the
# first view, co's first byte, the first frame and the ready prompt; then
# the package initialisation (GODEBUG=inittrace=1) of the packages that
# cost most. This tree's build is measured last.
#
#   scripts/bench-startup-profile.sh [rounds] [name=BINARY ...]
#   scripts/bench-startup-profile.sh 10 turn3=/tmp/co-29c59b3
#
# Builds without lib/startmark (before issue 44) show the outside phases
# and the package initialisation only.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/co .
n=${1:-10}
shift || true
builds=("$@" "this=bin/co")
go run ./scripts/benchtui -n "$n" -profile "$(IFS=,; echo "${builds[*]}")"
