#!/usr/bin/env bash
# Measures co's memory in a long full-screen conversation: RSS, peak RSS
# and the live Go heap after 100 and after 1,000 turns (a question, a
# read_file call and its output, a ~1,500-character markdown reply with a
# list, code and a table), an older build and this tree alternating in one
# run. co runs with its default settings: older turns are summarised, the
# scripted model answering the summary requests. OLD is a binary or a git
# revision (built in a temporary worktree).
#
#   scripts/bench-rss.sh [OLD] [rounds]      (OLD defaults to main)
#
# BENCHRSS_KEEP_ALL=1 keeps every message in the history instead (no
# summary: max_history_messages past the conversation's length).
set -euo pipefail
cd "$(dirname "$0")/.."
old="${1:-main}"
go build -o bin/co .
if [ ! -x "$old" ]; then
	tmp="$(mktemp -d)"
	trap 'git worktree remove --force "$tmp/src" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
	git worktree add --detach "$tmp/src" "$old" >/dev/null
	(cd "$tmp/src" && go build -o "$tmp/co-old" .)
	old="$tmp/co-old"
fi
keep=()
if [ -n "${BENCHRSS_KEEP_ALL:-}" ]; then keep=(-rss-keep-all); fi
go run ./scripts/benchtui -rss "old=$old,new=bin/co" -rss-turns 100,1000 -n "${2:-2}" "${keep[@]}"
