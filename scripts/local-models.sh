#!/usr/bin/env bash
# local-models.sh: a long conversation through co against real local servers.
#
# For each server and window it starts the server on a free loopback port,
# points a throw-away co configuration at it (its own HOME and XDG dirs: the
# user's settings, sessions and traces are never read or written), sends
# TURNS user messages of about MSG_CHARS characters each (turn 1 with
# `co run`, the others with `co run --continue`), and prints per turn whether
# it was answered or the error, the LLM requests co made (prompt/output
# tokens as the server reported them, S for a summary request) and what the
# server logged; then a table of all runs.
#
# It builds nothing. It takes what it runs from the environment:
#   CO            co binary (required)
#   GGUF          a GGUF model for both servers (required)
#   LLAMA_SERVER  llama-server binary (for the llama-* runs)
#   OLLAMA        ollama binary (for the ollama-* runs)
# and, optionally:
#   RUNS          default "llama-jinja llama-nojinja ollama-tools ollama-chat"
#   WINDOWS       default "2048 4096 8192": llama-server's -c, co's ollama_num_ctx
#   TURNS         default 12
#   MSG_CHARS     default 4400 (about 1,100 tokens by co's characters / 4)
#   TURN_TIMEOUT  seconds for one co run, default 900
#   THREADS       threads for the servers, default 1 (more only spin on a busy machine)
#   SETTINGS      JSON object merged into co's settings, e.g. '{"llm_max_tokens":512}'
#   OUT           where logs go, default a new directory under /tmp
#
# The ollama-tools run creates an Ollama model from GGUF with a ChatML
# template that renders tools; ollama-chat one whose template has none (so
# Ollama's /api/show lists no "tools" capability). Both in OUT's own
# OLLAMA_MODELS, with OUT's HOME for Ollama's key: ~/.ollama is not touched.
#
# Example (the tiny random-weight model of docs/providers.md):
#   CO=/tmp/co GGUF=/opt/tiny/tiny-ramble.gguf LLAMA_SERVER=/opt/llama.cpp/build/bin/llama-server \
#     OLLAMA=/opt/ollama/ollama scripts/local-models.sh
set -uo pipefail

die() {
	echo "local-models.sh: $*" >&2
	exit 2
}

RUNS=${RUNS:-"llama-jinja llama-nojinja ollama-tools ollama-chat"}
WINDOWS=${WINDOWS:-"2048 4096 8192"}
TURNS=${TURNS:-12}
MSG_CHARS=${MSG_CHARS:-4400}
TURN_TIMEOUT=${TURN_TIMEOUT:-900}
THREADS=${THREADS:-1}
SETTINGS=${SETTINGS:-"{}"}

need_file() { # VAR what
	local v=${!1:-}
	[ -n "$v" ] || die "$1 is not set: give the path of $2 (e.g. $1=/path/to/it)"
	[ -f "$v" ] || die "$1=$v: no such file ($2)"
}
need_exe() {
	need_file "$1" "$2"
	[ -x "${!1}" ] || die "$1=${!1} is not executable"
}
for tool in jq curl timeout awk; do
	command -v "$tool" >/dev/null || die "$tool is needed and not on PATH"
done
need_exe CO "the co binary to test (go build -o /tmp/co .)"
need_file GGUF "a GGUF model"
for run in $RUNS; do
	case $run in
	llama-jinja | llama-nojinja) need_exe LLAMA_SERVER "llama-server (llama.cpp built from source)" ;;
	ollama-tools | ollama-chat) need_exe OLLAMA "the ollama binary" ;;
	*) die "RUNS: unknown run '$run' (known: llama-jinja llama-nojinja ollama-tools ollama-chat)" ;;
	esac
done
for w in $WINDOWS; do
	[[ $w =~ ^[0-9]+$ ]] || die "WINDOWS: '$w' is not a number of tokens"
done
[[ $TURNS =~ ^[0-9]+$ ]] && [ "$TURNS" -ge 1 ] || die "TURNS: '$TURNS' is not a positive number"
jq -e 'type == "object"' <<<"$SETTINGS" >/dev/null 2>&1 || die "SETTINGS: '$SETTINGS' is not a JSON object"

OUT=${OUT:-$(mktemp -d /tmp/co-local-models.XXXXXX)}
mkdir -p "$OUT" || die "cannot create OUT=$OUT"
GGUF=$(cd "$(dirname "$GGUF")" && pwd)/$(basename "$GGUF")

SERVER_PID=""
cleanup() {
	if [ -n "$SERVER_PID" ]; then
		kill "$SERVER_PID" 2>/dev/null
		wait "$SERVER_PID" 2>/dev/null
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
	local p
	for _ in $(seq 1 50); do
		p=$((20000 + RANDOM % 20000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

wait_http() { # URL LOG
	for _ in $(seq 1 240); do
		curl -sf -o /dev/null "$1" && return 0
		kill -0 "$SERVER_PID" 2>/dev/null || {
			echo "the server exited; the end of its log ($2):" >&2
			tail -20 "$2" >&2
			return 1
		}
		sleep 0.5
	done
	echo "no answer from $1 after 120 s; see $2" >&2
	return 1
}

stop_server() {
	[ -n "$SERVER_PID" ] || return 0
	kill "$SERVER_PID" 2>/dev/null
	wait "$SERVER_PID" 2>/dev/null
	SERVER_PID=""
}

# A message of about MSG_CHARS characters, different for each turn.
message() {
	awk -v n="$1" -v chars="$MSG_CHARS" 'BEGIN {
		nw = split("the a report server window request token summary model answer question" \
			" project build test file line error value message reply turn history context budget" \
			" local remote process memory disk network config setting option flag default user" \
			" session trace span tool call shell command output input stream chunk bound limit" \
			" review change commit branch merge release version note plan task list item day week" \
			" morning evening meeting people team client invoice payment order account travel" \
			" weather garden kitchen recipe music book chapter page paragraph idea reason result", w, " ")
		srand(n)
		s = "Turn " n ". Please read all of this and answer briefly."
		k = 0
		while (length(s) < chars) {
			k++
			s = s " Point " n "." k ":"
			m = 8 + int(rand() * 10)
			for (i = 0; i < m; i++) {
				s = s " " w[1 + int(rand() * nw)]
				if (rand() < 0.1) s = s " " int(rand() * 10000)
			}
			s = s "."
		}
		print substr(s, 1, chars)
	}'
}

OLLAMA_TOOLS_TEMPLATE='{{- if or .System .Tools }}<|im_start|>system
{{- if .System }}
{{ .System }}
{{- end }}
{{- if .Tools }}

# Tools

You may call one or more functions to assist with the user query.

You are provided with function signatures within <tools></tools> XML tags:
<tools>
{{- range .Tools }}
{"type": "function", "function": {{ .Function }}}
{{- end }}
</tools>

For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
<tool_call>
{"name": <function-name>, "arguments": <args-json-object>}
</tool_call>
{{- end }}<|im_end|>
{{ end }}
{{- range $i, $_ := .Messages }}
{{- $last := eq (len (slice $.Messages $i)) 1 -}}
{{- if eq .Role "user" }}<|im_start|>user
{{ .Content }}<|im_end|>
{{ else if eq .Role "assistant" }}<|im_start|>assistant
{{ if .Content }}{{ .Content }}
{{- else if .ToolCalls }}<tool_call>
{{ range .ToolCalls }}{"name": "{{ .Function.Name }}", "arguments": {{ .Function.Arguments }}}
{{ end }}</tool_call>
{{- end }}{{ if not $last }}<|im_end|>
{{ end }}
{{- else if eq .Role "tool" }}<|im_start|>user
<tool_response>
{{ .Content }}
</tool_response><|im_end|>
{{ end }}
{{- if and (ne .Role "assistant") $last }}<|im_start|>assistant
{{ end }}
{{- end }}'

OLLAMA_CHAT_TEMPLATE='{{- range .Messages }}<|im_start|>{{ .Role }}
{{ .Content }}<|im_end|>
{{ end }}<|im_start|>assistant
'

# ollama_model NAME TEMPLATE: creates NAME from GGUF on the running server.
ollama_model() {
	local mf="$OUT/Modelfile.$1"
	{
		echo "FROM $GGUF"
		printf 'TEMPLATE """%s"""\n' "$2"
		echo 'PARAMETER stop "<|im_end|>"'
		echo 'PARAMETER stop "<|im_start|>"'
		echo "PARAMETER num_thread $THREADS"
	} >"$mf"
	"$OLLAMA" create "$1" -f "$mf" >"$OUT/ollama-create.$1.log" 2>&1 || {
		echo "ollama create $1 failed:" >&2
		tail -5 "$OUT/ollama-create.$1.log" >&2
		return 1
	}
}

RESULTS=()

# server_turn LOG FROM: what the server logged for the turn's requests (the log's lines after FROM).
server_turn() {
	tail -n +"$(($2 + 1))" "$1" | awk '
		/new prompt,.*task.n_tokens = / { match($0, /task.n_tokens = [0-9]+/); p = substr($0, RSTART + 16, RLENGTH - 16) }
		/^ *eval time =/ { match($0, /\/ +[0-9]+ tokens/); g = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", g); s = s " " p "->" g }
		/done request: POST \/v1\/chat\/completions .* [45][0-9][0-9]$/ { n[$NF]++ }
		/truncating input prompt/ { t++; match($0, /prompt=[0-9]+/); s = s " truncated:" substr($0, RSTART + 7, RLENGTH - 7) }
		/\[GIN\].*POST +"\/api\/chat"/ { c++ }
		END {
			o = ""
			if (s != "") o = " prompt->generated tokens:" s
			for (k in n) o = o "; " n[k] " HTTP " k
			if (c) o = o "; " c " /api/chat requests"
			sub(/^; /, " ", o)
			if (o != "") print "    server:" o
		}'
}

# run_conversation NAME WINDOW DIR: the turns, with co configured in DIR/home.
run_conversation() {
	local name=$1 win=$2 dir=$3 home=$3/home work=$3/work
	mkdir -p "$home/.config/co-cli" "$home/.local/share" "$work"
	jq -n --argjson extra "$SETTINGS" '$ARGS.named + {"sandbox_backend": "subprocess"} + $extra' \
		"${PROVIDER_ARGS[@]}" >"$home/.config/co-cli/settings.json"
	local coenv=(env -i "HOME=$home" "XDG_CONFIG_HOME=$home/.config" "XDG_DATA_HOME=$home/.local/share"
		"PATH=$PATH" "TERM=dumb" "LANG=C.UTF-8")
	local answered=0 first_fail="" max_in=0 summaries=0 i
	echo "== $name, window $win (logs: $dir)"
	for i in $(seq 1 "$TURNS"); do
		local args=(run --json)
		[ "$i" -gt 1 ] && args+=(--continue)
		local tj="$dir/turn-$i.json" te="$dir/turn-$i.err" rc=0 logpos
		logpos=$(wc -l <"$dir/server.log")
		(cd "$work" && timeout "$TURN_TIMEOUT" "${coenv[@]}" "$CO" "${args[@]}" "$(message "$i")" </dev/null >"$tj" 2>"$te") || rc=$?
		"${coenv[@]}" "$CO" tail --no-follow --json --all -n 0 >"$dir/spans.json" 2>/dev/null
		local trace reqs
		trace=$(jq -rs '[.[] | select(.name == "invoke_agent")] | sort_by(.start_time) | last | .trace_id // ""' "$dir/spans.json")
		# Each LLM request of the turn: input/output tokens, S: a summary (under compact_history), !: failed.
		reqs=$(jq -rs --arg t "$trace" '
			[.[] | select(.trace_id == $t)] as $s
			| ($s | map(select(.name == "compact_history") | .id)) as $c
			| $s | map(select(.name | startswith("chat "))) | sort_by(.start_time)
			| map((if ([.parent_id] | inside($c)) then "S" else "" end)
				+ ((.attributes["gen_ai.usage.input_tokens"] // "?") | tostring) + "/"
				+ ((.attributes["gen_ai.usage.output_tokens"] // "?") | tostring)
				+ (if .status_code == "ERROR" then "!" else "" end))
			| join(" ")' "$dir/spans.json")
		local ncompact
		ncompact=$(jq -s --arg t "$trace" '[.[] | select(.trace_id == $t and .name == "compact_history")] | length' "$dir/spans.json")
		summaries=$((summaries + ncompact))
		local m
		m=$(jq -s --arg t "$trace" '[.[] | select(.trace_id == $t and (.name | startswith("chat "))) | .attributes["gen_ai.usage.input_tokens"] // 0] | max // 0' "$dir/spans.json")
		[ "$m" -gt "$max_in" ] && max_in=$m
		local fin fail
		fin=$(jq -r 'select(.type == "turn_finished") | "requests \(.requests), tokens in \(.usage.input_tokens) out \(.usage.output_tokens)"' "$tj" 2>/dev/null)
		fail=$(jq -r 'select(.type == "turn_failed") | .message' "$tj" 2>/dev/null)
		if [ -n "$fin" ] && [ "$rc" -eq 0 ]; then
			answered=$((answered + 1))
			echo "turn $i: answered ($fin; compactions $ncompact; requests: ${reqs:-none})"
		else
			[ -n "$fail" ] || fail=$(grep -v '^co: warning: UNSANDBOXED' "$te" | tail -1)
			[ "$rc" -eq 124 ] && fail="timed out after $TURN_TIMEOUT s"
			echo "turn $i: FAILED (exit $rc): $fail (compactions $ncompact; requests: ${reqs:-none})"
			[ -n "$first_fail" ] || first_fail="turn $i: $fail"
		fi
		jq -r 'select(.type == "notice") | "    notice: \(.text)"' "$tj" 2>/dev/null | sort -u
		server_turn "$dir/server.log" "$logpos"
	done
	RESULTS+=("$name|$win|$answered/$TURNS|$max_in|$summaries|${first_fail:-—}")
}

for run in $RUNS; do
	for win in $WINDOWS; do
		dir="$OUT/$run-$win"
		mkdir -p "$dir"
		port=$(free_port) || die "no free loopback port found"
		log="$dir/server.log"
		case $run in
		llama-*)
			jinja=--jinja
			[ "$run" = llama-nojinja ] && jinja=--no-jinja
			"$LLAMA_SERVER" -m "$GGUF" --host 127.0.0.1 --port "$port" -c "$win" -t "$THREADS" \
				--alias tiny "$jinja" >"$log" 2>&1 &
			SERVER_PID=$!
			wait_http "http://127.0.0.1:$port/health" "$log" || {
				RESULTS+=("$run|$win|—|—|—|the server did not start")
				stop_server
				continue
			}
			PROVIDER_ARGS=(--arg llm_provider openai --arg openai_base_url "http://127.0.0.1:$port/v1"
				--arg openai_model tiny --arg openai_api_key sk-local)
			;;
		ollama-*)
			mkdir -p "$OUT/ollama-home"
			OLLAMA_HOST="127.0.0.1:$port" OLLAMA_MODELS="$OUT/ollama-models" HOME="$OUT/ollama-home" \
				OLLAMA_NO_CLOUD=1 "$OLLAMA" serve >"$log" 2>&1 &
			SERVER_PID=$!
			wait_http "http://127.0.0.1:$port/api/version" "$log" || {
				RESULTS+=("$run|$win|—|—|—|the server did not start")
				stop_server
				continue
			}
			model=tiny-tools tmpl=$OLLAMA_TOOLS_TEMPLATE
			[ "$run" = ollama-chat ] && model=tiny-chat tmpl=$OLLAMA_CHAT_TEMPLATE
			OLLAMA_HOST="127.0.0.1:$port" HOME="$OUT/ollama-home" ollama_model "$model" "$tmpl" || {
				RESULTS+=("$run|$win|—|—|—|ollama create failed")
				stop_server
				continue
			}
			PROVIDER_ARGS=(--arg llm_provider ollama --arg ollama_host "http://127.0.0.1:$port"
				--arg ollama_model "$model" --argjson ollama_num_ctx "$win")
			;;
		esac
		run_conversation "$run" "$win" "$dir"
		stop_server
		case $run in
		llama-*) echo "   server: $(grep -c 'chat/completions .* 400$' "$log") HTTP 400, $(grep -c 'chat/completions .* 500$' "$log") HTTP 500 (of $(grep -c 'done request: POST /v1/chat/completions' "$log") chat requests)" ;;
		ollama-*) echo "   server: $(grep -c 'truncating input prompt' "$log") prompts truncated ('truncating input prompt')" ;;
		esac
	done
done

echo
echo "co: $("$CO" version 2>/dev/null | head -1)   model: $GGUF   turns of $MSG_CHARS characters"
printf '%-14s %-7s %-9s %-13s %-12s %s\n' run window answered "max prompt" compactions "first failure"
for r in "${RESULTS[@]}"; do
	IFS='|' read -r a b c d e f <<<"$r"
	printf '%-14s %-7s %-9s %-13s %-12s %s\n' "$a" "$b" "$c" "$d" "$e" "$f"
done
