#!/usr/bin/env bash
# Measures resuming a 1,000-turn saved session: first screen and peak RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/co .
go run ./scripts/benchresume -co bin/co -turns "${1:-1000}" -n "${2:-5}"
