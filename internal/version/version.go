// Package version names the binary's own version and the Codex version whose protocol it speaks.
package version

// Version is gocodex's own version.
const Version = "0.1.0"

// CodexProtocol is the Codex CLI release whose wire protocol gocodex implements. Clients gate
// features on it, so it leads the user agent string.
const CodexProtocol = "0.169.0"

// Full is the version line printed by --version.
func Full() string { return "gocodex " + Version + " (codex " + CodexProtocol + " compatible)" }
