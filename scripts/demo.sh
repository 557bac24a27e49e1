#!/usr/bin/env bash
# Builds gocodex and runs its main job, a headless `exec` turn, against the bundled scripted
# model server on 127.0.0.1 — no account or network needed. The model asks to run a command
# in the sandbox, reads its output and answers.
#   scripts/demo.sh [--json]
# To use a real provider instead, configure $CODEX_HOME/config.toml and run
#   bin/gocodex exec "your prompt"
# DEMO_BUILD_NOTICE_AFTER: seconds the build may take before the demo says why (default 5).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin
echo "demo: building bin/gocodex and bin/mockmodel"
build() {
	CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o bin/gocodex ./cmd/gocodex &&
		CGO_ENABLED=0 go build -o bin/mockmodel ./internal/testkit/cmd/mockmodel
}
# A warm build takes seconds; the first one downloads and compiles every dependency, which
# takes minutes on a small machine: say so rather than sit silent.
build &
build_pid=$!
notice_after=$(( ${DEMO_BUILD_NOTICE_AFTER:-5} * 10 ))
for _ in $(seq "$notice_after"); do
	kill -0 "$build_pid" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$build_pid" 2>/dev/null; then
	echo "demo: still building: the first build downloads and compiles every dependency and can take a few minutes; later runs take seconds"
fi
wait "$build_pid"

work=$(mktemp -d)
trap 'kill "${mock_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/project"
git init -q "$work/project"
echo "hello from the demo project" > "$work/project/README.md"

bin/mockmodel -script scripts/demo-model.json \
  -codex-home "$work/home" > "$work/mock.url" &
mock_pid=$!
for _ in $(seq 50); do [ -s "$work/mock.url" ] && break; sleep 0.1; done

CODEX_HOME="$work/home" MOCK_API_KEY=demo bin/gocodex exec -C "$work/project" --sandbox workspace-write "$@" \
  "Look around this project and tell me what it is."
