#!/usr/bin/env bash
# Measures co's full-screen chat as a whole process in a pseudo-terminal
# against agent/llmtest: ready prompt, CPU to render a streamed 8,000-char
# markdown reply (paced and unpaced), time from the last chunk to the
# reply on screen, peak RSS (one reply; a 1,000-message transcript), CPU
# per chunk with 10 vs 1,000 earlier messages, keystroke latency while
# streaming. Prints a markdown table.
#
#   scripts/bench-tui.sh [launches] [turns]
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/co .
go run ./scripts/benchtui -co bin/co -n "${1:-20}" -turns "${2:-500}"
