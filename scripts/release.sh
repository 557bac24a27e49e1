#!/usr/bin/env bash
# Builds the release archives of the checked-out tree: scripts/release.sh OUTDIR
#   OUTDIR/gocodex-VERSION-OS-ARCH.tar.gz   linux and darwin, amd64 and arm64
#   OUTDIR/gocodex-VERSION-windows-ARCH.zip windows, amd64 and arm64
#   OUTDIR/SHA256SUMS                        `sha256sum` lines of those archives
# Each archive holds one folder, gocodex-VERSION-OS-ARCH/, with the binary (static, stripped,
# its version stamped), README.md and LICENSE. VERSION comes from `git describe`: a tag
# vX.Y.Z gives X.Y.Z (X.Y.Z-N-gHASH past it); with no tag it is the tree's version.Base and
# the commit, BASE-dev-gHASH; local changes add -dirty.
# The same commit built with the same Go gives byte-identical archives: entries sorted, owner
# 0, modes 0755 and 0644, every time the commit's (gzip and zip without timestamps of their own).
# A target that fails to build fails the run and nothing is written to OUTDIR.
#   TARGETS="linux/amd64 windows/amd64"  only these targets (default: all six)
# Needs git, GNU tar, gzip, zip and sha256sum.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: scripts/release.sh OUTDIR" >&2
	exit 2
fi
outdir=$1
for tool in git go tar gzip zip sha256sum; do
	if ! command -v "$tool" >/dev/null; then
		echo "release: $tool is needed and not on PATH" >&2
		exit 1
	fi
done
if ! tar --version 2>/dev/null | grep -q 'GNU tar'; then
	echo "release: GNU tar is needed (for --sort and --owner); on macOS: brew install gnu-tar, and put its gnubin first on PATH" >&2
	exit 1
fi

targets=${TARGETS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"}

base=$(sed -n 's/^const Base = "\(.*\)"$/\1/p' internal/version/version.go)
if [ -z "$base" ]; then
	echo "release: no 'const Base' in internal/version/version.go" >&2
	exit 1
fi
if desc=$(git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null); then
	version=${desc#v}
else
	version="$base-dev-g$(git rev-parse --short=12 HEAD)"
	if ! git diff --quiet HEAD --; then version="$version-dirty"; fi
fi
# Every time in the archives is the commit's (SOURCE_DATE_EPOCH, as reproducible builds name it).
epoch=$(git log -1 --format=%ct HEAD)
export TZ=UTC # zip stores local times
echo "release: gocodex $version, commit time $(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/out"

failed=()
for target in $targets; do
	goos=${target%/*}
	goarch=${target#*/}
	name="gocodex-$version-$goos-$goarch"
	dir="$work/stage/$name"
	exe=gocodex
	[ "$goos" = windows ] && exe=gocodex.exe
	mkdir -p "$dir"
	echo "release: building $goos/$goarch"
	if ! CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -buildvcs=false \
		-ldflags="-s -w -X github.com/gocodex/gocodex/internal/version.stamped=$version" \
		-o "$dir/$exe" ./cmd/gocodex 2>"$work/build.err"; then
		echo "release: $goos/$goarch does not build:" >&2
		head -n 20 "$work/build.err" >&2
		failed+=("$goos/$goarch")
		continue
	fi
	cp README.md LICENSE "$dir/"
	chmod 0755 "$dir" "$dir/$exe"
	chmod 0644 "$dir/README.md" "$dir/LICENSE"
	find "$dir" -exec touch -h -d "@$epoch" {} +
	if [ "$goos" = windows ]; then
		# Sorted names, no extra fields (uid/gid, extended times): only the entries and times.
		(cd "$work/stage" && find "$name" | LC_ALL=C sort | zip -q -X -9 -@ "$work/out/$name.zip")
	else
		tar --sort=name --format=ustar --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
			-C "$work/stage" -cf - "$name" | gzip -9 -n >"$work/out/$name.tar.gz"
	fi
done

if [ ${#failed[@]} -gt 0 ]; then
	echo "release: ${failed[*]} did not build; nothing written to $outdir" >&2
	exit 1
fi

(cd "$work/out" && LC_ALL=C ls | xargs sha256sum --) >"$work/SHA256SUMS"
mv "$work/SHA256SUMS" "$work/out/"
mkdir -p "$outdir"
cp "$work/out"/* "$outdir/"
echo "release: wrote to $outdir:"
(cd "$outdir" && cat SHA256SUMS)
