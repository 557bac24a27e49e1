package skills

import "path/filepath"

// Rule is one [[skills.config]] entry of config.toml: the skill at Path, or every skill
// named Name, is on or off. Later rules win over earlier ones, as later lines of the file
// are written later (skills/config/write appends).
type Rule struct {
	Name    string
	Path    string
	Enabled bool
}

// Enabled says whether the rules leave s on (a skill no rule names is on).
func Enabled(rules []Rule, s Skill) bool {
	on := true
	for _, r := range rules {
		if r.matches(s) {
			on = r.Enabled
		}
	}
	return on
}

func (r Rule) matches(s Skill) bool {
	if r.Path != "" {
		if filepath.Clean(r.Path) == filepath.Clean(s.Path) {
			return true
		}
		real, err := filepath.EvalSymlinks(s.Path)
		return err == nil && filepath.Clean(r.Path) == real
	}
	return r.Name != "" && r.Name == s.Name
}

// RulesFromConfig reads the skills.config array of a merged configuration tree; entries
// without a boolean `enabled` or without a name or path are skipped.
func RulesFromConfig(effective map[string]any) []Rule {
	tbl, _ := effective["skills"].(map[string]any)
	var entries []any
	switch v := tbl["config"].(type) {
	case []any:
		entries = v
	case []map[string]any:
		for _, m := range v {
			entries = append(entries, m)
		}
	}
	var out []Rule
	for _, e := range entries {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		on, ok := m["enabled"].(bool)
		if !ok {
			continue
		}
		name, _ := m["name"].(string)
		path, _ := m["path"].(string)
		if name == "" && path == "" {
			continue
		}
		out = append(out, Rule{Name: name, Path: path, Enabled: on})
	}
	return out
}
