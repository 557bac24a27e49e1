package appserver

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/gocodex/gocodex/internal/skills"
)

// A skill rule is appended as a [[skills.config]] table; a file that holds skills.config as
// an inline array gets the rule added to it; either way the rules read back in order and
// the last one wins.
func TestAppendSkillRule(t *testing.T) {
	for name, start := range map[string]string{
		"tables": "model = \"m\"\n",
		"inline": "[skills]\nconfig = [{ name = \"demo\", enabled = true }]\n",
		"none":   "",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.toml")
			if start != "" {
				if err := os.WriteFile(path, []byte(start), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := appendSkillRule(path, map[string]any{"name": "demo", "enabled": false}); err != nil {
				t.Fatal(err)
			}
			if err := appendSkillRule(path, map[string]any{"path": `/p/"q"/SKILL.md`, "enabled": false}); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(path)
			var tree map[string]any
			if err := toml.Unmarshal(b, &tree); err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
			rules := skills.RulesFromConfig(tree)
			if len(rules) < 2 || rules[len(rules)-1].Path != `/p/"q"/SKILL.md` {
				t.Fatalf("rules %+v\n%s", rules, b)
			}
			if skills.Enabled(rules, skills.Skill{Name: "demo", Path: "/x/SKILL.md"}) {
				t.Errorf("demo still on:\n%s", b)
			}
		})
	}
}
