#!/usr/bin/env bash
# Regenerates internal/appserver's RPC layer (rpc_types_gen.go, rpc_api_gen.go) from Codex's
# app-server schema. The schema defaults to the archive the package embeds
# (scripts/refresh-appserver-schema.sh rebuilds it); pass another as the first argument: a
# .tar.zst of json/ and ts/ trees or a directory holding them, and as the second what it is.
#   scripts/generate-appserver-rpc.sh [SCHEMA] ["Codex 0.171"]
set -euo pipefail
cd "$(dirname "$0")/../internal/appserver"
schema="${1:-schemagen/codex-schema.tar.zst}"
[[ "$schema" = /* ]] || schema="$OLDPWD/$schema"
[[ -e "$schema" ]] || schema="${1:-schemagen/codex-schema.tar.zst}"
go run ./rpcgen/cmd -schema "$schema" -out . -source "${2:-Codex 0.171}"
