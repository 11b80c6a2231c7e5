#!/usr/bin/env bash
# Measures co's start-up: `co version` and `co --plain` to its first prompt.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/co .
go run ./scripts/benchstartup -co bin/co -n "${1:-50}"
