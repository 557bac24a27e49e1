#!/usr/bin/env bash
# Runs the hot-path benchmarks (scripts/hotpaths.sh) and compares them with benchstat against
# the previous run's results in bench/results/hotpaths.txt, which this run then replaces.
# Run it on a quiet machine; the comparison means something only between runs on the same one.
#   COUNT      samples per benchmark (default 6; benchstat wants at least 6 for its test)
#   BENCHTIME  -benchtime of each sample (default 1s)
#   SAVE=0     compare without replacing bench/results/hotpaths.txt
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/hotpaths.sh
COUNT="${COUNT:-6}"
BENCHTIME="${BENCHTIME:-1s}"
BENCHSTAT="golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da"
old=bench/results/hotpaths.txt
new=$(mktemp)
trap 'rm -f "$new"' EXIT
{
	echo "# hot-path benchmarks, $(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
	for entry in "${HOTPATHS[@]}"; do
		read -r pkg re <<<"$entry"
		echo "bench-hotpaths: $pkg $re" >&2
		go test -run '^$' -bench "$re" -benchmem -count "$COUNT" -benchtime "$BENCHTIME" "$pkg" |
			grep -E '^(goos|goarch|pkg|cpu|Benchmark)'
	done
} >"$new"
if [ -f "$old" ]; then
	go run "$BENCHSTAT" "$old" "$new"
else
	go run "$BENCHSTAT" "$new"
	echo "bench-hotpaths: no previous run in $old to compare with" >&2
fi
if [ "${SAVE:-1}" != 0 ]; then
	mkdir -p "$(dirname "$old")"
	cp "$new" "$old"
	echo "bench-hotpaths: kept this run in $old" >&2
fi
