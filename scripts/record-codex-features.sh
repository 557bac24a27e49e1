#!/usr/bin/env bash
# Records a Codex release's feature flags for internal/features, then regenerates its table:
#   scripts/record-codex-features.sh VERSION CODEX_BINARY
# It asks the reference app-server (a temporary CODEX_HOME, memories switched on at run time as
# TestExperimentalFeatureListMatchesCodex does) for experimentalFeature/list, and which names
# experimentalFeature/enablement/set keeps when sent every flag; `features list` is recorded
# for the e2e comparison. Needs python3 (a maintainer's tool; tests only read the recordings).
set -euo pipefail
version=${1:?usage: $0 VERSION CODEX_BINARY}
bin=${2:?usage: $0 VERSION CODEX_BINARY}
repo=$(cd "$(dirname "$0")/.." && pwd)
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
mkdir -p "$home/codex"
printf 'check_for_update_on_startup = false\n[features]\nplugins = false\n' >"$home/codex/config.toml"
python3 - "$bin" "$home/codex" "$repo/internal/appserver/testdata/codex-$version-experimental-feature-list.json" \
	"$repo/internal/features/testdata/codex-$version-runtime-settable.json" <<'PY'
import json, os, subprocess, sys
bin, home, list_out, settable_out = sys.argv[1:]
env = dict(os.environ, CODEX_HOME=home, HOME=os.path.dirname(home))
p = subprocess.Popen([bin, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL, env=env, text=True)
def call(i, method, params):
    p.stdin.write(json.dumps({"id": i, "method": method, "params": params}) + "\n"); p.stdin.flush()
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == i and "method" not in m:
            return m["result"]
call(1, "initialize", {"clientInfo": {"name": "record", "version": "1"}, "capabilities": {"experimentalApi": True}})
p.stdin.write(json.dumps({"method": "initialized"}) + "\n")
call(2, "experimentalFeature/enablement/set", {"enablement": {"memories": True}})
listing = call(3, "experimentalFeature/list", {})
with open(list_out, "w") as f:
    json.dump(listing, f, indent=1); f.write("\n")
kept = call(4, "experimentalFeature/enablement/set", {"enablement": {r["name"]: r["enabled"] for r in listing["data"]}})
with open(settable_out, "w") as f:
    json.dump(sorted(kept["enablement"]), f, indent=1); f.write("\n")
p.stdin.close(); p.wait(timeout=10)
PY
mkdir -p "$home/empty" # features list with no configuration at all, as the tests run it
HOME="$home" CODEX_HOME="$home/empty" "$bin" features list 2>/dev/null >"$repo/e2e/testdata/codex-$version-features-list.txt"
cp "$repo/e2e/testdata/codex-$version-features-list.txt" "$repo/internal/features/testdata/"
(cd "$repo/internal/features" && go run gen_codex_features.go "$version")
echo "recorded Codex $version's feature flags; update the tests' file names if the version changed"
