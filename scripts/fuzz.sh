#!/usr/bin/env bash
# Runs every Fuzz* target in the module for a short time each: scripts/fuzz.sh [DURATION]
# A found crasher fails the run (its input is written under the package's testdata/fuzz).
# Go's fuzzer sometimes stops with "context deadline exceeded" and no failing input when the
# machine is too busy to start its workers in time; such a run is tried once more, longer.
set -euo pipefail
cd "$(dirname "$0")/.."
dur="${1:-5s}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

fuzz() { go test -run '^$' -fuzz "^$2\$" -fuzztime "$3" "$1" >"$log" 2>&1; }

for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    echo "fuzz $pkg $target ($dur)"
    if fuzz "$pkg" "$target" "$dur"; then continue; fi
    if ! grep -q "Failing input written" "$log" && grep -q "context deadline exceeded" "$log"; then
      echo "  the fuzzer timed out without a failing input; trying once more"
      if fuzz "$pkg" "$target" 15s; then continue; fi
    fi
    cat "$log"
    exit 1
  done
done
