#!/usr/bin/env bash
# Builds and runs the examples module (examples/, its own go.mod) the way a program in
# another module uses gocodex: the embedded agent with a custom tool and a scripted model
# (its Example test), and a client driving `gocodex app-server` over stdio against the
# scripted model server of internal/testkit.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
mock_pid=
cleanup() {
	if [ -n "$mock_pid" ]; then kill "$mock_pid" 2>/dev/null || true; wait "$mock_pid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "examples: vet and test (embedded agent)"
(cd examples && go vet ./... && go test -count=1 ./...)

echo "examples: app-server client against the scripted model"
CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$tmp/gocodex" ./cmd/gocodex
go build -o "$tmp/mockmodel" ./internal/testkit/cmd/mockmodel
(cd examples && go build -o "$tmp/appserver-example" ./appserver)
mkdir -p "$tmp/home" "$tmp/work"
"$tmp/mockmodel" -script internal/testkit/testdata/scripts/plain.json -codex-home "$tmp/home" >"$tmp/mock.out" 2>"$tmp/mock.err" &
mock_pid=$!
for _ in $(seq 100); do
	[ -s "$tmp/mock.out" ] && break
	sleep 0.1
done
if [ ! -s "$tmp/mock.out" ]; then
	echo "mockmodel did not start:" >&2
	cat "$tmp/mock.err" >&2
	exit 1
fi
out=$(env -u OPENAI_API_KEY HOME="$tmp/home" CODEX_HOME="$tmp/home" MOCK_API_KEY=test-key \
	"$tmp/appserver-example" -gocodex "$tmp/gocodex" -cwd "$tmp/work" -timeout 60s -prompt "Say hello.")
echo "$out"
if ! grep -q '^turn/completed: completed$' <<<"$out"; then
	echo "the app-server example did not complete its turn" >&2
	exit 1
fi
echo "examples: ok"
