package config

import (
	"errors"
	"os"
	"path/filepath"
)

// CodexHome returns the directory holding config.toml, auth.json and the
// sessions: $CODEX_HOME when set (made absolute, since Codex canonicalises it),
// otherwise ~/.codex. env is usually os.Getenv; tests pass their own.
func CodexHome(env func(string) string) (string, error) {
	if env == nil {
		env = os.Getenv
	}
	if h := env("CODEX_HOME"); h != "" {
		abs, err := filepath.Abs(h)
		if err != nil {
			return "", err
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
