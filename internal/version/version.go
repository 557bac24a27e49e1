// Package version names the binary's own version and the Codex version whose protocol it speaks.
package version

import (
	"runtime/debug"
	"strings"
)

// Base is the version of the source tree: the version a binary reports when nothing told it
// more (a plain `go build` in a checkout).
const Base = "0.1.0"

// stamped is set by the release build (scripts/release.sh) from `git describe`:
// -ldflags "-X github.com/gocodex/gocodex/internal/version.stamped=0.1.0-3-gabc1234".
var stamped string

// Version is gocodex's own version: the release build's stamp, else the module version `go
// install module@version` recorded in the binary, else Base.
var Version = resolve(stamped, mainModuleVersion())

// CodexProtocol is the Codex CLI release whose wire protocol gocodex implements. Clients gate
// features on it, so it leads the user agent string.
const CodexProtocol = "0.169.0"

// Full is the version line printed by --version.
func Full() string { return "gocodex " + Version + " (codex " + CodexProtocol + " compatible)" }

// resolve picks the version to report from the release stamp and the main module's version in
// the build information ("(devel)" or "" when built inside a checkout).
func resolve(stamp, module string) string {
	if stamp != "" {
		return strings.TrimPrefix(stamp, "v")
	}
	if module != "" && module != "(devel)" {
		return strings.TrimPrefix(module, "v")
	}
	return Base
}

func mainModuleVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	return info.Main.Version
}
