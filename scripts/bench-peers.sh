#!/usr/bin/env bash
# Measures co against other builds and against Crush, each in a real tmux
# pane of 120×40 talking to agent/llmtest (issue 44): first frame, ready
# prompt, CPU to it, idle CPU (landing screen and after a reply), an
# 8,000-character markdown reply streamed in 4-character chunks 2 ms apart
# (wall and CPU from Enter to the reply on screen), total CPU, peak RSS.
# Launches alternate round by round; prints a markdown table of medians
# and ratios to the first program (scripts/benchpeers).
#
#   scripts/bench-peers.sh [rounds] name=binary... [-flag value...]
#
# bin/co is built first and measured as "this" unless a name=bin/co is
# given; arguments from the first one starting with - go to
# scripts/benchpeers as they are (-ratio this/t3,this/crush, -idle 5s, …).
# Crush is built from source outside the repository, with its version set
# as its release builds set it:
#
#   git clone https://github.com/charmbracelet/crush /work/peers/crush
#   cd /work/peers/crush && git checkout v0.90.0
#   go build -ldflags "-X github.com/charmbracelet/crush/internal/version.Version=0.90.0" -o crush .
#   scripts/bench-peers.sh 8 t3=/work/bin-t3 this=bin/co crush=/work/peers/crush/crush \
#     -ratio this/t3,this/crush,t3/crush
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=8
if [[ ${1:-} =~ ^[0-9]+$ ]]; then
	rounds=$1
	shift
fi
go build -o bin/co .
progs=()
while [ $# -gt 0 ] && [[ $1 != -* ]]; do
	progs+=("$1")
	shift
done
if [[ " ${progs[*]} " != *"=bin/co "* ]]; then
	progs+=("this=bin/co")
fi
go run ./scripts/benchpeers -n "$rounds" -compare "$(IFS=,; echo "${progs[*]}")" "$@"
