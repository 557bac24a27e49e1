#!/usr/bin/env bash
# Rebuilds third_party/ from the upstream releases plus gocodex's patches, so moving to a new
# release is a re-apply, not a hand copy (third_party/README.md).
#
#   scripts/rebuild-third-party.sh            rewrite third_party/bubbletea and third_party/bubbles
#   scripts/rebuild-third-party.sh --out DIR  write the rebuilt tree into DIR instead (the test
#                                             TestThirdPartyIsUpstreamPlusPatches compares it)
#
# Upstream comes from the Go module proxy (go mod download); the steps are: copy the release's
# files (for bubbles only the packages the UI uses), drop go.mod/go.sum and the repository's
# own tooling files, rewrite the import paths into this module, gofmt, then apply
# third_party/patches/<module>/*.patch in order with git apply.
set -euo pipefail

BUBBLETEA_VERSION=v2.0.10
BUBBLES_VERSION=v2.2.1
# The bubbles packages the UI imports, and the internal ones they import.
BUBBLES_PACKAGES=(cursor key textarea viewport internal/memoization internal/runeutil)
# Upstream files that are the upstream repository's tooling, not the package.
DROP=(.gitattributes .github .gitignore .golangci.yml .goreleaser.yml Taskfile.yaml UPGRADE_GUIDE_V2.md go.mod go.sum)

repo=$(cd "$(dirname "$0")/.." && pwd)
out="$repo/third_party"
if [[ "${1:-}" == "--out" ]]; then
	out=${2:?--out needs a directory}
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
elif [[ $# -gt 0 ]]; then
	echo "usage: $0 [--out DIR]" >&2
	exit 2
fi

work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

module_dir() { # module@version -> its folder in the module cache (downloaded if missing)
	(cd "$work" && GOFLAGS=-mod=mod go mod download -json "$1") |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'
}

tea=$(module_dir "charm.land/bubbletea/v2@$BUBBLETEA_VERSION")
bubbles=$(module_dir "charm.land/bubbles/v2@$BUBBLES_VERSION")
[[ -d "$tea" && -d "$bubbles" ]] || { echo "rebuild-third-party: could not download the upstream modules" >&2; exit 1; }

tree="$work/tree"
mkdir -p "$tree/bubbletea" "$tree/bubbles"
cp -R "$tea/." "$tree/bubbletea/"
for f in "${DROP[@]}"; do rm -rf "${tree:?}/bubbletea/$f"; done
cp "$bubbles/LICENSE" "$tree/bubbles/"
for p in "${BUBBLES_PACKAGES[@]}"; do
	mkdir -p "$tree/bubbles/$p"
	cp -R "$bubbles/$p/." "$tree/bubbles/$p/"
done
chmod -R u+w "$tree"

# Import paths into this module (no replace directive: go install must keep working).
find "$tree" -name '*.go' -exec sed -i \
	-e 's#"charm.land/bubbletea/v2"#"github.com/gocodex/gocodex/third_party/bubbletea"#' \
	-e 's#"charm.land/bubbles/v2/#"github.com/gocodex/gocodex/third_party/bubbles/#' {} +
gofmt -w "$tree"

# The patches, in order; git apply outside any repository applies relative to the tree.
for patch in "$repo"/third_party/patches/*/*.patch; do
	(cd "$tree" && GIT_CEILING_DIRECTORIES="$work" git apply --whitespace=nowarn "$patch") ||
		{ echo "rebuild-third-party: $patch no longer applies to the upstream release" >&2; exit 1; }
done

# Replace the module's copies, keeping gocodex's own files (PATCHES.md).
for d in bubbletea bubbles; do
	keep=$(mktemp -d)
	[[ -f "$out/$d/PATCHES.md" ]] && cp "$out/$d/PATCHES.md" "$keep/"
	rm -rf "${out:?}/$d"
	cp -R "$tree/$d" "$out/$d"
	[[ -f "$keep/PATCHES.md" ]] && cp "$keep/PATCHES.md" "$out/$d/"
	rm -rf "$keep"
done
echo "rebuilt $out/bubbletea ($BUBBLETEA_VERSION + $(ls "$repo"/third_party/patches/bubbletea/*.patch | wc -l) patches) and $out/bubbles ($BUBBLES_VERSION)"
