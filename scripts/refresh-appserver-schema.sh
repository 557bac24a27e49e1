#!/usr/bin/env bash
# Rebuilds internal/appserver/schemagen/codex-schema.tar.zst: the JSON schema and TypeScript
# trees Codex's `app-server generate-json-schema` / `generate-ts` write (stable and
# --experimental), which `gocodex app-server generate-*` filters down to what gocodex serves.
# Run after moving the reference version (CODEX_REF_VERSION=0.171.0 and its CODEX_REF_CACHE);
# needs npm and zstd. Works from the main checkout or a worktree beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
ref="$(../shared/tools/reference-codex 2>/dev/null || ../../shared/tools/reference-codex)"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
export CODEX_HOME="$work/home" HOME="$work/home"; mkdir -p "$CODEX_HOME"
out="$work/trees"; mkdir -p "$out"
timeout 60 "$ref" app-server generate-json-schema --out "$out/json" 2>/dev/null
timeout 60 "$ref" app-server generate-json-schema --experimental --out "$out/json-experimental" 2>/dev/null
timeout 60 "$ref" app-server generate-ts --out "$out/ts" 2>/dev/null
timeout 60 "$ref" app-server generate-ts --experimental --out "$out/ts-experimental" 2>/dev/null
# A reproducible archive: sorted names, no owners or times.
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=ustar -C "$out" -cf "$work/trees.tar" .
zstd -q -19 --long=24 -f "$work/trees.tar" -o internal/appserver/schemagen/codex-schema.tar.zst
ls -l internal/appserver/schemagen/codex-schema.tar.zst
