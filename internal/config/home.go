package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
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
	home := env(homeVar(runtime.GOOS))
	if home == "" {
		var err error
		home, err = os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("could not find home directory: set CODEX_HOME or %s", homeVar(runtime.GOOS))
		}
	}
	return filepath.Join(home, ".codex"), nil
}

// homeVar is the variable naming the user's home folder, where CODEX_HOME defaults to
// .codex: HOME, and on Windows USERPROFILE (as Codex: a HOME set by Git Bash or MSYS is a
// Unix-style path there, not the profile folder).
func homeVar(goos string) string {
	if goos == "windows" {
		return "USERPROFILE"
	}
	return "HOME"
}

// UserConfigPath is $CODEX_HOME/config.toml, the file `mcp add/remove` and
// the app-server's config writes edit by default.
func UserConfigPath(codexHome string) string { return filepath.Join(codexHome, "config.toml") }
