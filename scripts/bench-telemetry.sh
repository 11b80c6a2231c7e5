#!/usr/bin/env bash
# Measures telemetry's figures (see telemetry/README.md):
#   - the SQLite exporter's throughput (spans/s, and CPU per span);
#   - a span's latency to the side panel (Feed) and to `co tail`;
#   - tracing's CPU overhead on an agent turn: no-op tracer vs co's tracing,
#     alternating in one process (BenchmarkTracingOverhead, ROUNDS runs),
#     then as separate runs interleaved ROUNDS times (this machine is
#     shared and noisy), the median of the paired ratios reported.
# Usage: scripts/bench-telemetry.sh [ROUNDS]   (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

go test -c -o "$tmp/telemetry.test" ./telemetry
cd telemetry

echo "== exporter (batches of 512, one transaction each)"
"$tmp/telemetry.test" -test.run '^$' -test.bench 'Exporter' -test.benchtime 40000x -test.count 3 | grep Benchmark

echo "== span end → side panel (Feed)"
"$tmp/telemetry.test" -test.run '^$' -test.bench 'FeedLatency' -test.benchtime 500x | grep Benchmark

echo "== span end → co tail (a separate process)"
(cd .. && go test -count=1 -run '^$' -bench 'TelemetryTailLatency' -benchtime 3x ./e2e/ | grep -E 'Benchmark|ok|FAIL')

echo "== tracing's CPU per agent turn: no-op and traced agents alternating in one process ($rounds runs of 1,000 pairs)"
# The headline figure: alternating turn by turn (each round the other one
# first) cancels the shared machine's drifting load. Each traced turn is
# flushed: its spans are one batch, one transaction, as an interactive
# turn's are, and the export goroutine's CPU is in the turn's. "traced" is
# co run / --plain; "panel" also drains the side panel's feed. On this
# machine the two turns of a pair differ with an SD of ~1.3 ms, so one
# run's figure moves by about ±1.2 points (95 %); the pooled line is the
# ratio over all the runs' turns.
for ((i = 0; i < rounds; i++)); do
	"$tmp/telemetry.test" -test.run '^$' -test.bench 'TracingOverhead' -test.benchtime 1000x |
		awk '/^BenchmarkTracingOverhead/ {
			name = $1; sub(/^BenchmarkTracingOverhead\//, "", name); sub(/-[0-9]+$/, "", name)
			for (i = 3; i < NF; i++) {
				if ($(i+1) == "overhead-%") o = $i
				else if ($(i+1) == "noop-cpu-µs/turn") n = $i
				else if ($(i+1) ~ /-cpu-µs\/turn$/) t = $i
			}
			printf "%-14s %+5.1f%%   (mean CPU a turn: %5.0f µs no-op, %5.0f µs traced)\n", name, o, n, t
		}'
done | tee "$tmp/overhead.txt"
awk '{ n[$1] += $7; t[$1] += $10; k[$1]++ }
	END { for (v in n) printf "%-14s %+5.1f%%   pooled over %d runs\n", v, (t[v] / n[v] - 1) * 100, k[v] }' "$tmp/overhead.txt" | sort

echo "== the same, variants run one after the other ($rounds rounds, median of paired ratios; noisier)"
for ((i = 0; i < rounds; i++)); do
	for shape in stream tools; do
		for v in noop traced traced-panel; do
			# Long enough runs that a session's one-off costs (the store's
			# first pages, the first checkpoint) do not count as per-turn.
			n=1500
			[ "$shape" = stream ] && n=150
			"$tmp/telemetry.test" -test.run '^$' -test.bench "AgentTurn/$shape/$v\$" -test.benchtime "${n}x" |
				awk -v s="$shape" -v v="$v" '/cpu-µs\/turn/ { for (i = 1; i < NF; i++) if ($(i+1) == "cpu-µs/turn") print s, v, $i }'
		done
	done
done >"$tmp/turns.txt"
# Medians, and each variant's median ratio to noop in the same round.
awk '
	{ k = $1 "/" $2; n[k]++; x[k, n[k]] = $3 }
	function median(a, m,   i, j, t) {
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
	}
	END {
		for (k in n) {
			for (i = 1; i <= n[k]; i++) a[i] = x[k, i]
			printf "%-20s median %8.0f cpu-µs/turn over %d rounds\n", k, median(a, n[k]), n[k]
			split(k, p, "/")
			base = p[1] "/noop"
			if (k == base) continue
			m = 0
			for (i = 1; i <= n[k] && i <= n[base]; i++) r[++m] = x[k, i] / x[base, i]
			printf "%-20s overhead %+.1f%% (median of %d paired ratios)\n", k, (median(r, m) - 1) * 100, m
		}
	}' "$tmp/turns.txt" | sort
