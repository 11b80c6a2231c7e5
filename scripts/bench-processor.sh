#!/usr/bin/env bash
# Compares the span processors in front of co's SQLite store on a busy
# turn's spans (telemetry/processor_bench_test.go): the SDK's
# BatchSpanProcessor alone vs co's (the same, counting dropped spans). At
# commit 7464495 the same script compared co's former batcher with the
# SDK's (the figures in telemetry/README.md); check it out to rerun that.
# Two measures, ROUNDS times each:
#   - BenchmarkProcessorAlternating: the two turn by turn in one process,
#     1,000 pairs, process CPU per turn (the drifting load of a shared
#     machine falls on both alike);
#   - BenchmarkProcessorTurn: separate runs, interleaved (each round the
#     other first), ns/op, B/op, allocs/op and CPU per turn.
# Usage: scripts/bench-processor.sh [ROUNDS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-5}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

go test -c -o "$tmp/telemetry.test" ./telemetry
cd telemetry
if ! "$tmp/telemetry.test" -test.list 'BenchmarkProcessorTurn' | grep -q .; then
	echo "no BenchmarkProcessorTurn in this tree" >&2
	exit 1
fi

echo "== alternating turn by turn in one process ($rounds runs of 1,000 pairs)"
for ((i = 0; i < rounds; i++)); do
	"$tmp/telemetry.test" -test.run '^$' -test.bench 'ProcessorAlternating' -test.benchtime 1000x |
		awk '/^BenchmarkProcessorAlternating/ {
			for (i = 3; i < NF; i++) {
				if ($(i+1) == "sdk-cpu-µs/turn") a = $i
				else if ($(i+1) == "co-cpu-µs/turn") s = $i
				else if ($(i+1) == "co-vs-sdk-%") d = $i
			}
			printf "sdk %5.0f µs  co %5.0f µs  co %+5.1f%%\n", a, s, d
		}'
done | tee "$tmp/alt.txt"
awk '{ a += $2; s += $5; n++ } END { printf "pooled over %d runs: sdk %.0f µs, co %.0f µs a turn: co %+.1f%%\n", n, a / n, s / n, (s / a - 1) * 100 }' "$tmp/alt.txt"

echo "== separate runs, interleaved ($rounds rounds of 1,000 turns each; medians)"
for ((i = 0; i < rounds; i++)); do
	order="sdk co"
	((i % 2)) && order="co sdk"
	for p in $order; do
		"$tmp/telemetry.test" -test.run '^$' -test.bench "ProcessorTurn/$p\$" -test.benchtime 1000x |
			awk -v p="$p" '/^BenchmarkProcessorTurn/ {
				for (i = 3; i < NF; i++) {
					if ($(i+1) == "ns/op") ns = $i
					else if ($(i+1) == "cpu-µs/turn") cpu = $i
					else if ($(i+1) == "B/op") by = $i
					else if ($(i+1) == "allocs/op") al = $i
				}
				print p, ns, cpu, by, al
			}'
	done
done >"$tmp/turns.txt"
awk '
	function median(a, m,   i, j, t) {
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
	}
	{ k = $1; n[k]++; ns[k, n[k]] = $2; cpu[k, n[k]] = $3; by[k, n[k]] = $4; al[k, n[k]] = $5 }
	END {
		for (k in n) {
			for (i = 1; i <= n[k]; i++) { a[i] = ns[k, i]; c[i] = cpu[k, i]; b[i] = by[k, i]; l[i] = al[k, i] }
			printf "%-8s median %7.0f ns/op  %5.0f cpu-µs/turn  %6.0f B/op  %4.0f allocs/op  (%d runs)\n", k, median(a, n[k]), median(c, n[k]), median(b, n[k]), median(l, n[k]), n[k]
		}
	}' "$tmp/turns.txt" | sort
