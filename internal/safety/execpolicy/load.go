package execpolicy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// RulesDirName is the folder under a config folder (CODEX_HOME, a project's .codex) that holds
// the `*.rules` files.
const RulesDirName = "rules"

// DefaultRulesFile is the file amendments are appended to, under CODEX_HOME/rules.
const DefaultRulesFile = "default.rules"

// RulesFiles lists the `*.rules` regular files directly in dir, sorted by name. A missing
// directory holds no rules.
func RulesFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read rules files from %s: %w", dir, err)
	}
	var out []string
	for _, e := range entries {
		if !e.Type().IsRegular() || filepath.Ext(e.Name()) != ".rules" {
			continue
		}
		out = append(out, filepath.Join(dir, e.Name()))
	}
	sort.Strings(out)
	return out, nil
}

// LoadFiles parses the given rules files in order into one policy.
func LoadFiles(paths []string) (*Policy, error) {
	p := NewParser()
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, &LoadError{Path: path, Msg: fmt.Sprintf("failed to read rules file: %v", err)}
		}
		if err := p.Parse(path, src); err != nil {
			return nil, err
		}
	}
	return p.Policy(), nil
}

// Load loads the user's rules (CODEX_HOME/rules) and then those of the project's .codex
// folders, root first, as Codex loads each config layer's: the caller passes only the folders
// that may load (a trusted project's), and keep, when set, says which of their files may
// (nil keeps all). The strictest decision wins, so the order only changes the order in which
// matches are listed.
func Load(codexHome string, projectFolders []string, keep func(path string) bool) (*Policy, error) {
	paths, err := RulesFiles(filepath.Join(codexHome, RulesDirName))
	if err != nil {
		return nil, err
	}
	for _, f := range projectFolders {
		if f == "" || samePath(f, codexHome) {
			continue
		}
		files, err := RulesFiles(filepath.Join(f, RulesDirName))
		if err != nil {
			return nil, err
		}
		for _, file := range files {
			if keep == nil || keep(file) {
				paths = append(paths, file)
			}
		}
	}
	return LoadFiles(paths)
}

func samePath(a, b string) bool {
	return strings.TrimSuffix(filepath.Clean(a), "/") == strings.TrimSuffix(filepath.Clean(b), "/")
}
