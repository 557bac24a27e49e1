#!/usr/bin/env bash
# Every platform gocodex ships for, checked from this one (Linux) machine: the six static
# binaries build, and for macOS and Windows `go vet` passes and every test package compiles
# (the test binaries are built, then "run" with /bin/true: nothing here can execute them).
# So a change that breaks another platform's build fails CI. scripts/test.sh runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

targets="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"
for t in $targets; do
  echo "-- build $t"
  CGO_ENABLED=0 GOOS=${t%/*} GOARCH=${t#*/} go build -trimpath -o /dev/null ./cmd/gocodex
done
for os in darwin windows; do
  echo "-- vet $os"
  CGO_ENABLED=0 GOOS=$os GOARCH=amd64 go vet ./...
  echo "-- compile the tests for $os"
  CGO_ENABLED=0 GOOS=$os GOARCH=amd64 go test -count=1 -exec /bin/true ./... >/dev/null
done
