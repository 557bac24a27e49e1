package skills

import (
	"path/filepath"
	"testing"
)

// A [[skills.config]] entry turns a skill off by path or by name; a later entry wins; a
// skill turned off is listed but not given to the model; extra roots add user skills.
func TestRulesAndExtraRoots(t *testing.T) {
	w := newWorld(t)
	demo := writeSkill(t, filepath.Join(w.codexHome, "skills", "demo"), skillText("demo", "Demo."))
	extraDir := filepath.Join(t.TempDir(), "extra")
	writeSkill(t, filepath.Join(extraDir, "more"), skillText("more", "More."))

	o := w.opts()
	o.ExtraRoots = []string{extraDir}
	o.Rules = RulesFromConfig(map[string]any{"skills": map[string]any{"config": []any{
		map[string]any{"path": demo, "enabled": false},
		map[string]any{"name": "more", "enabled": false},
		map[string]any{"name": "more", "enabled": true},
		map[string]any{"name": "ignored"}, // no enabled: skipped
	}}})
	if len(o.Rules) != 3 {
		t.Fatalf("rules = %+v", o.Rules)
	}
	cat := Discover(o)
	var on, off []string
	for _, s := range cat.Skills {
		on = append(on, s.Name)
	}
	for _, s := range cat.Disabled {
		off = append(off, s.Name)
	}
	if len(on) != 1 || on[0] != "more" || len(off) != 1 || off[0] != "demo" {
		t.Fatalf("on %v, off %v", on, off)
	}
	if len(cat.Listed()) != 2 {
		t.Fatalf("listed %v", cat.Listed())
	}
}
