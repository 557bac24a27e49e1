package mcp

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"
)

// MaxToolNameLen is the longest tool name the Responses API accepts.
const MaxToolNameLen = 64

// Sanitize maps a server or tool name onto the characters the Responses API allows in a
// tool name: every byte outside [A-Za-z0-9_] becomes '_' (a multi-byte rune becomes one
// '_'). An empty name stays empty.
func Sanitize(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// limit keeps name within MaxToolNameLen: a longer name is cut and given the suffix
// `_<first 12 hex digits of sha1(raw)>`, so two long names that share a prefix stay apart.
// raw is the unsanitised identity the hash is taken over.
func limit(name, raw string) string {
	if len(name) <= MaxToolNameLen {
		return name
	}
	sum := sha1.Sum([]byte(raw))
	suffix := "_" + hex.EncodeToString(sum[:])[:12]
	return name[:MaxToolNameLen-len(suffix)] + suffix
}

// NamespaceName is the name of the Responses `namespace` tool that groups a server's tools:
// `mcp__<server>` as Codex 0.169 sends it (the spec's trailing `__` is not on the wire).
func NamespaceName(server string) string {
	return limit("mcp__"+Sanitize(server), "mcp__"+server)
}

// ToolName is the name of a tool inside its server's namespace.
func ToolName(tool string) string { return Sanitize(tool) }

// QualifiedName is the flat name `mcp__<server>__<tool>` used where a provider has no
// namespaces, kept within MaxToolNameLen with a hash suffix.
func QualifiedName(server, tool string) string {
	return limit("mcp__"+Sanitize(server)+"__"+Sanitize(tool), "mcp__"+server+"__"+tool)
}
