#!/usr/bin/env bash
# Runs every Fuzz* target in the module for a short time each: scripts/fuzz.sh [DURATION]
set -euo pipefail
cd "$(dirname "$0")/.."
dur="${1:-5s}"
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    echo "fuzz $pkg $target ($dur)"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$dur" "$pkg" >/tmp/gocodex-fuzz.log 2>&1 || { cat /tmp/gocodex-fuzz.log; exit 1; }
  done
done
