package releasetest

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/config"
)

// TestGuideNamesEveryConfigKeyAndVariable keeps docs/guide.md true to the code: every
// top-level config.toml key the loader decodes, and every environment variable the program
// reads by name (os.Getenv, LookupEnv, the getenv functions passed around, a provider's
// env_key), is named in the guide, in backticks.
func TestGuideNamesEveryConfigKeyAndVariable(t *testing.T) {
	root := repoRoot(t)
	guide, err := os.ReadFile(filepath.Join(root, "docs", "guide.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := func(name string) bool { return strings.Contains(string(guide), "`"+name) }

	ft := reflect.TypeOf(config.File{})
	for i := 0; i < ft.NumField(); i++ {
		key, _, _ := strings.Cut(ft.Field(i).Tag.Get("toml"), ",")
		if key != "" && !named(key) {
			t.Errorf("docs/guide.md does not name the config key %s", key)
		}
	}

	vars := readVariables(t, root)
	if len(vars) < 20 {
		t.Fatalf("found only %d variables read by name: the scan is broken", len(vars))
	}
	for _, v := range vars {
		if v != "PATH" && !named(v) {
			t.Errorf("docs/guide.md does not name the environment variable %s", v)
		}
	}
}

// envRead finds an environment variable read by its literal name.
var envRead = regexp.MustCompile(`(?:Getenv|LookupEnv|getenv|\benv)\("([A-Z][A-Z0-9_]*)"\)|EnvKey:\s*"([A-Z][A-Z0-9_]*)"`)

// readVariables lists, sorted, the variables the program's own code reads by name: the Go files
// of the module that are not tests, test support or third-party code.
func readVariables(t *testing.T, root string) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch rel {
			case ".git", "third_party", "e2e", "examples", "bench", "internal/testkit", "internal/releasetest", "internal/layering":
				return filepath.SkipDir
			}
			if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "node_modules" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range envRead.FindAllStringSubmatch(string(data), -1) {
			seen[m[1]+m[2]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for v := range seen {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}
