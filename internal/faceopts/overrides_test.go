package faceopts

import (
	"testing"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/protocol"
)

func TestThreadOverridesApply(t *testing.T) {
	baseModel := "gpt-base"
	base := config.LoadOptions{
		Cwd:            "/base",
		Profile:        "p0",
		ValueOverrides: map[string]any{"a": 1, "b": 2},
		Overrides:      config.Overrides{Model: &baseModel, OSS: true},
	}
	model, empty := "gpt-thread", ""
	sm := protocol.SandboxWorkspaceWrite
	got := ThreadOverrides{
		Cwd:         &empty, // an empty cwd keeps the base's
		Profile:     nil,
		Model:       &model,
		SandboxMode: &sm,
		Config:      map[string]any{"b": 3, "c": 4},
	}.Apply(base)

	if got.Cwd != "/base" || got.Profile != "p0" {
		t.Errorf("cwd/profile = %q/%q, want the base's", got.Cwd, got.Profile)
	}
	if *got.Overrides.Model != "gpt-thread" || *got.Overrides.SandboxMode != sm || !got.Overrides.OSS {
		t.Errorf("overrides = %+v", got.Overrides)
	}
	if got.ValueOverrides["a"] != 1 || got.ValueOverrides["b"] != 3 || got.ValueOverrides["c"] != 4 {
		t.Errorf("value overrides = %v: the request's config must win over -c", got.ValueOverrides)
	}
	if base.ValueOverrides["b"] != 2 || *base.Overrides.Model != "gpt-base" {
		t.Error("Apply modified its base")
	}
	if same := (ThreadOverrides{}).Apply(base); same.Cwd != base.Cwd || len(same.ValueOverrides) != 2 || same.Overrides.Model != base.Overrides.Model {
		t.Errorf("empty overrides changed the options: %+v", same)
	}
}
