#!/usr/bin/env bash
# Runs every hot-path benchmark (scripts/hotpaths.sh) once, so they keep compiling and running;
# the figures of a single iteration mean nothing. For figures, scripts/bench-hotpaths.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/hotpaths.sh
for entry in "${HOTPATHS[@]}"; do
	read -r pkg re <<<"$entry"
	if ! out=$(go test -run '^$' -bench "$re" -benchtime=1x -count=1 "$pkg" 2>&1); then
		echo "$out" >&2
		echo "bench-smoke: $pkg $re failed" >&2
		exit 1
	fi
	grep -E '^(Benchmark|ok)' <<<"$out"
done
