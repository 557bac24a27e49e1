#!/usr/bin/env bash
# The project's test command: what CI runs (via .ci/run) and what a newcomer runs.
# It installs what it needs (the TypeScript SDK from npm), vets, runs every Go test with the
# race detector (unit and end-to-end suites), builds the release archives and installs the
# module with go install, and fuzzes each parser briefly.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt would change:"; echo "$unformatted"; exit 1; fi

echo "== go vet"
go vet ./...
# gocodex fleet's Kubernetes engine is linked only with -tags kubernetes (internal/fleet/fleetcli).
go vet -tags kubernetes ./internal/fleet/... ./cmd/gocodex

echo "== other platforms (six static builds; vet and test compile for darwin and windows)"
scripts/cross-check.sh

echo "== go mod tidy (repo and examples/)"
scripts/check-tidy.sh

echo "== TypeScript SDK (npm)"
if command -v npm >/dev/null 2>&1; then
  if [ ! -d e2e/sdk/node_modules/@openai/codex-sdk ]; then
    (cd e2e/sdk && npm install --omit=optional --no-audit --no-fund --loglevel=error) || {
      echo "npm install of @openai/codex-sdk failed"; exit 1; }
  fi
  # A published MCP server for the MCP client's end-to-end tests (e2e/mcp_test.go).
  if [ ! -d e2e/mcpnpm/node_modules/@modelcontextprotocol/server-everything ]; then
    (cd e2e/mcpnpm && npm install --no-audit --no-fund --loglevel=error) || {
      echo "npm install of @modelcontextprotocol/server-everything failed"; exit 1; }
  fi
  # The official ACP client SDK, which drives `gocodex acp` as an editor would (e2e/acp_test.go),
  # and Zed's adapter over Codex, the reference the same script runs through.
  if [ ! -d e2e/acp/node_modules/@agentclientprotocol/sdk ]; then
    (cd e2e/acp && npm install --no-audit --no-fund --loglevel=error) || {
      echo "npm install of @agentclientprotocol/sdk failed"; exit 1; }
  fi
  if [ ! -d e2e/acp/reference/node_modules/@zed-industries/codex-acp ]; then
    (cd e2e/acp/reference && npm install --no-audit --no-fund --loglevel=error) || {
      echo "npm install of @zed-industries/codex-acp failed"; exit 1; }
  fi
fi

echo "== reference Codex (npm), for the comparison tests"
ref_tool="$(pwd)/../shared/tools/reference-codex"
if [ -z "${GOCODEX_REFERENCE_CODEX:-}" ] && [ -x "$ref_tool" ]; then
  if GOCODEX_REFERENCE_CODEX=$("$ref_tool"); then
    export GOCODEX_REFERENCE_CODEX
    echo "reference: $GOCODEX_REFERENCE_CODEX"
  else
    echo "installing the reference Codex failed"; exit 1
  fi
fi
# Codex 0.171, the newest reference, for the recordings of its new behaviour; its own cache so
# the 0.169 install stays as it is.
if [ -z "${GOCODEX_REFERENCE_CODEX_171:-}" ] && [ -x "$ref_tool" ]; then
  if ref171=$(CODEX_REF_CACHE="$HOME/.cache/gocodex-reference-0.171" CODEX_REF_VERSION=0.171.0 "$ref_tool" | grep '^/' | tail -1) && [ -x "$ref171" ]; then
    export GOCODEX_REFERENCE_CODEX_171="$ref171"
    echo "reference 0.171: $GOCODEX_REFERENCE_CODEX_171"
  else
    echo "installing the reference Codex 0.171 failed"; exit 1
  fi
fi

echo "== Slurm and munge (Debian), for the fleet's end-to-end tests (e2e/fleet_*_linux_test.go)"
# The tests start a one-node cluster of their own (testkit.StartSlurm); under CI=true they fail
# when they cannot, so a missing install is never a silent skip.
if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null; } || {
      echo "apt-get install slurm-wlm munge failed"; exit 1; }
  elif [ "${CI:-}" = true ]; then
    echo "CI needs slurm-wlm and munge (apt-get install as root)"; exit 1
  else
    echo "slurm-wlm and munge are not installed: the fleet's Slurm tests will skip"
  fi
fi

echo "== a Secret Service (the MCP sign-in keyring tests, e2e/mcp_oauth_keyring_linux_test.go)"
# The tests start a D-Bus session and gnome-keyring of their own (testkit.StartKeyring) and read
# it with secret-tool; under CI=true they fail when they cannot.
if ! command -v gnome-keyring-daemon >/dev/null 2>&1 || ! command -v secret-tool >/dev/null 2>&1 || ! command -v dbus-daemon >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends dbus gnome-keyring libsecret-tools >/dev/null; } || {
      echo "apt-get install dbus gnome-keyring libsecret-tools failed"; exit 1; }
  elif [ "${CI:-}" = true ]; then
    echo "CI needs dbus, gnome-keyring and libsecret-tools (apt-get install as root)"; exit 1
  else
    echo "gnome-keyring and secret-tool are not installed: the keyring tests will skip"
  fi
fi

echo "== gopls (the language server tests, e2e/lsp_test.go and internal/lsp)"
# Built once (a few minutes) and cached outside the clone; the tests find it through
# GOCODEX_GOPLS, and fail under CI=true without it.
gopls_version=v0.23.0
gopls_dir="${GOCODEX_CI_CACHE:-$HOME/.cache/gocodex-ci}/gopls"
if ! "$gopls_dir/gopls" version 2>/dev/null | grep -q " $gopls_version\$"; then
  (cd / && GOBIN="$gopls_dir" go install "golang.org/x/tools/gopls@$gopls_version") || {
    echo "go install golang.org/x/tools/gopls@$gopls_version failed"; exit 1; }
fi
export GOCODEX_GOPLS="$gopls_dir/gopls"
"$GOCODEX_GOPLS" version

echo "== go test -race"
# Tests start race-enabled binaries many times; by default each sleeps 1 s at exit.
export GORACE="${GORACE:-atexit_sleep_ms=0}"
go test -race -count=1 -timeout 20m ./...
# The fleet's commands as a binary built with its Kubernetes engine has them.
go test -race -count=1 -tags kubernetes ./internal/fleet/fleetcli/

echo "== release: scripts/release.sh's six archives and checksums; go install from a module proxy"
# Cross-builds for every target and a go install from scratch: minutes on a cold build cache,
# so apart from the main suite (which skips these tests).
GOCODEX_RELEASE_TESTS=1 go test -count=1 -timeout 45m -v -run '^(TestReleaseArchives|TestGoInstallFromModuleProxy)$' ./internal/releasetest

echo "== examples module (a program in another module using the public API)"
scripts/run-examples.sh

echo "== bench module (statistics, table, README section; -quick suite end to end)"
(cd bench && go vet ./... && go test -count=1 ./...)

echo "== hot-path benchmarks, once each"
scripts/bench-smoke.sh

echo "== fuzz (brief)"
scripts/fuzz.sh 5s
