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

// LoadConfigFolders loads `<folder>/rules/*.rules` for each config folder, lowest precedence
// first: CODEX_HOME, then the project's `.codex` folders from the repository root down to
// the working directory. Since the strictest decision wins, the order only changes the
// order in which matches are listed.
func LoadConfigFolders(folders []string) (*Policy, error) {
	var paths []string
	for _, f := range folders {
		if f == "" {
			continue
		}
		files, err := RulesFiles(filepath.Join(f, RulesDirName))
		if err != nil {
			return nil, err
		}
		paths = append(paths, files...)
	}
	return LoadFiles(paths)
}

// Load loads the user's rules (CODEX_HOME/rules) and, when projectDir is set, the project's
// (`projectDir/.codex/rules`).
func Load(codexHome, projectDir string) (*Policy, error) {
	folders := []string{codexHome}
	if projectDir != "" {
		project := filepath.Join(projectDir, ".codex")
		if !samePath(project, codexHome) {
			folders = append(folders, project)
		}
	}
	return LoadConfigFolders(folders)
}

func samePath(a, b string) bool {
	return strings.TrimSuffix(filepath.Clean(a), "/") == strings.TrimSuffix(filepath.Clean(b), "/")
}
