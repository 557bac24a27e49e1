package tui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/gocodex/gocodex/protocol"
)

// cdCommand is /cd DIR: the conversation goes on in DIR: the next turns' commands run
// there, their sandbox writes there and the model is told (override_turn_context).
func (m *Model) cdCommand(typed, args string) {
	dir := strings.TrimSpace(args)
	if dir == "" {
		m.commandError(typed, "Usage: /cd <directory>")
		return
	}
	dir, err := resolveDir(m.header.Cwd, dir)
	if err != nil {
		m.commandError(typed, "/cd: "+err.Error())
		return
	}
	if m.submitOp(protocol.OverrideTurnContextOp{Cwd: &dir}) {
		m.header.Cwd, m.files = dir, nil
		m.info("Working directory changed to: " + dir)
	}
}

// resolveDir makes dir absolute (from cwd, ~ for the home folder) and checks it is a folder.
func resolveDir(cwd, dir string) (string, error) {
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, strings.TrimPrefix(dir, "~"))
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(cwd, dir)
	}
	dir = filepath.Clean(dir)
	fi, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", errors.New("no such directory: " + dir)
		}
		return "", err
	}
	if !fi.IsDir() {
		return "", errors.New("not a directory: " + dir)
	}
	return dir, nil
}
