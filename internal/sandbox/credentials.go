package sandbox

import (
	"os"
	"path/filepath"
)

// credentialNames are the entries of CODEX_HOME that hold credentials gocodex and Codex share:
// the login (auth.json), MCP servers' OAuth tokens in their file store (.credentials.json) and
// Codex's encrypted secrets store (secrets/). Where the sandbox has a mount namespace they are
// covered by an empty, unreadable, read-only file or directory for the command.
var credentialNames = []string{"auth.json", ".credentials.json", "secrets"}

// credentialPaths lists the credential entries of codexHome, existing or not.
func credentialPaths(codexHome string) []string {
	if codexHome == "" {
		return nil
	}
	paths := make([]string, 0, len(credentialNames))
	for _, name := range credentialNames {
		paths = append(paths, filepath.Join(codexHome, name))
	}
	return paths
}

// codexHomeFor is the CODEX_HOME whose credentials the sandbox hides: Options.CodexHome, else
// gocodex's own $CODEX_HOME, else ~/.codex (as config.CodexHome resolves it).
func codexHomeFor(opts Options) string {
	home := opts.CodexHome
	if home == "" {
		home = os.Getenv("CODEX_HOME")
	}
	if home == "" {
		userHome := os.Getenv("HOME")
		if userHome == "" {
			userHome, _ = os.UserHomeDir()
		}
		if userHome == "" {
			return ""
		}
		home = filepath.Join(userHome, ".codex")
	}
	if abs, err := filepath.Abs(home); err == nil {
		home = abs
	}
	return home
}
