#!/usr/bin/env bash
# Fails when go.mod/go.sum of the repo, examples/ or bench/ are not what `go mod tidy` would write
# (prints the difference; run `go mod tidy` in that directory to fix it).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for dir in . examples bench; do
	if ! diff=$(cd "$dir" && go mod tidy -diff 2>&1); then
		echo "go.mod in $dir is not tidy (run: cd $dir && go mod tidy):" >&2
		echo "$diff" >&2
		status=1
	fi
done
exit $status
