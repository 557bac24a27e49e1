package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// CodexHome returns the directory holding config.toml, auth.json and the
// sessions: $CODEX_HOME when set, otherwise ~/.codex. Like Codex, a set
// CODEX_HOME must be an existing directory (and is canonicalised), while
// ~/.codex may not exist yet. env is usually os.Getenv; tests pass their own.
func CodexHome(env func(string) string) (string, error) {
	if env == nil {
		env = os.Getenv
	}
	if h := env("CODEX_HOME"); h != "" {
		abs, err := filepath.Abs(h)
		if err != nil {
			return "", err
		}
		st, err := os.Stat(abs)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return "", fmt.Errorf("CODEX_HOME points to %q, but that path does not exist", h)
		case err != nil:
			return "", fmt.Errorf("CODEX_HOME points to %q, but it cannot be read: %w", h, err)
		case !st.IsDir():
			return "", fmt.Errorf("CODEX_HOME points to %q, but that path is not a directory", h)
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		return abs, nil
	}
	home := env("HOME")
	if home == "" {
		var err error
		home, err = os.UserHomeDir()
		if err != nil {
			return "", errors.New("could not find home directory: set CODEX_HOME or HOME")
		}
	}
	return filepath.Join(home, ".codex"), nil
}

// UserConfigPath is $CODEX_HOME/config.toml, the file `mcp add/remove` and
// the app-server's config writes edit by default.
func UserConfigPath(codexHome string) string { return filepath.Join(codexHome, "config.toml") }
