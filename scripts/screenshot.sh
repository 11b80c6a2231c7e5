#!/usr/bin/env bash
# Makes the README's screenshot: co's full-screen chat in a 120x36 tmux
# pane, in a scratch home and a small demo workspace, answering a scripted
# model (agent/llmtest) that lists the files with the sandboxed shell and
# then replies. Writes docs/screenshot.txt (the pane as text) and
# docs/screenshot.png (the pane with its colours, rendered by headless
# Chromium from the HTML scripts/ansihtml makes of `tmux capture-pane -e`).
# Needs tmux and chromium; the shell call runs in the Docker sandbox when
# one is up (scripts/docker-up.sh), unsandboxed otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tmp=$(mktemp -d /tmp/co-demo.XXXX)
sock=co-screenshot-$$
llm=
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	[[ -n $llm ]] && kill "$llm" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/co" .
go build -o "$tmp/llmtest" ./agent/llmtest/cmd/llmtest

ws=$tmp/hello
mkdir -p "$ws/cmd" "$tmp/home"
printf 'module example.com/hello\n\ngo 1.26\n' >"$ws/go.mod"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$ws/main.go"
printf '# hello\n\nA tiny program that says hello.\n' >"$ws/README.md"
printf 'package main\n' >"$ws/cmd/tool.go"
cat >"$tmp/script.json" <<'JSON'
[
  {"match": "files", "tool_calls": [{"name": "run_shell_command", "args": {"cmd": "ls -R"}}]},
  {"match": "files", "chunk_size": 8, "chunk_delay": "5ms", "text": "This is a small **Go** program:\n\n| file | what it is |\n|---|---|\n| `go.mod` | the module, `example.com/hello` |\n| `main.go` | the program: it prints `hello` |\n| `README.md` | one line about it |\n| `cmd/tool.go` | an empty `main` package |\n\nRun it with:\n\n```sh\ngo run .\n```"}
]
JSON
"$tmp/llmtest" --rules --quiet --script "$tmp/script.json" >"$tmp/llm.out" &
llm=$!
for _ in $(seq 100); do grep -q LLMTEST_URL "$tmp/llm.out" && break; sleep 0.1; done
url=$(sed -n 's/^LLMTEST_URL=//p' "$tmp/llm.out")

# wait_for TEXT: until the pane shows TEXT (a minute at most).
wait_for() {
	for _ in $(seq 600); do
		tmux -L "$sock" capture-pane -p -t co | grep -qF "$1" && return 0
		sleep 0.1
	done
	echo "screenshot: the pane never showed: $1" >&2
	tmux -L "$sock" capture-pane -p -t co >&2
	exit 1
}
tmux -L "$sock" -f /dev/null new-session -d -s co -x 120 -y 36 -c "$ws" \
	env -i PATH="$PATH" TERM=xterm-256color HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" \
	XDG_DATA_HOME="$tmp/home/.local/share" XDG_STATE_HOME="$tmp/home/.local/state" \
	CO_CLI_THEME=dark LLM_PROVIDER=openai OPENAI_BASE_URL="$url" OPENAI_MODEL=test "$tmp/co"
wait_for "Ask co anything"
wait_for "sandbox_start" # the side panel: the sandbox's container is up, so the call does not wait for it
tmux -L "$sock" send-keys -t co "what files are in this project?" Enter
wait_for "go run ."
# The turn's end settles the screen (spinner gone, spans ended): wait until two captures agree.
prev=
for _ in $(seq 100); do
	cur=$(tmux -L "$sock" capture-pane -e -p -t co)
	[[ $cur == "$prev" ]] && break
	prev=$cur
	sleep 0.3
done
tmux -L "$sock" capture-pane -p -t co >"$root/docs/screenshot.txt"
tmux -L "$sock" capture-pane -e -p -t co >"$tmp/pane.ansi"
go run ./scripts/ansihtml -cols 120 -rows 36 -bg '#1e1e1e' -fg '#d4d4d4' <"$tmp/pane.ansi" >"$tmp/pane.html"
chromium --headless --no-sandbox --disable-background-networking --disable-gpu --hide-scrollbars \
	--window-size=1120,700 --screenshot="$root/docs/screenshot.png" "file://$tmp/pane.html" 2>/dev/null
echo "wrote docs/screenshot.png and docs/screenshot.txt"
