package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/protocol"
)

func TestLoadOptionsLayerTheCallOverTheServer(t *testing.T) {
	base := config.LoadOptions{
		CodexHome:      "/home/codex",
		Cwd:            "/srv",
		CLIOverrides:   []string{`model="from-server"`},
		ValueOverrides: map[string]any{"a": 1, "b": 1},
	}
	p, err := parseCodexParams(json.RawMessage(`{"prompt":"hi","cwd":"/work","profile":"fast","model":"m","approval-policy":"untrusted","sandbox":"read-only","config":{"b":2,"c":3},"developer-instructions":"dev","base-instructions":"base","compact-prompt":"cp"}`))
	if err != nil {
		t.Fatal(err)
	}
	got := p.overrides().Apply(base)
	str := func(s string) *string { return &s }
	untrusted := protocol.ApprovalUntrusted
	readOnly := protocol.SandboxReadOnly
	want := config.LoadOptions{
		CodexHome:      "/home/codex",
		Cwd:            "/work",
		Profile:        "fast",
		CLIOverrides:   []string{`model="from-server"`},
		ValueOverrides: map[string]any{"a": 1, "b": float64(2), "c": float64(3)},
		Overrides: config.Overrides{
			Model:                 str("m"),
			ApprovalPolicy:        &untrusted,
			SandboxMode:           &readOnly,
			BaseInstructions:      str("base"),
			DeveloperInstructions: str("dev"),
			CompactPrompt:         str("cp"),
		},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b func(string) string) bool { return a == nil && b == nil })); diff != "" {
		t.Errorf("load options (-want +got):\n%s", diff)
	}
	if base.ValueOverrides["b"] != 1 {
		t.Error("the server's overrides were modified")
	}

	// A call with nothing but a prompt leaves the server's choices alone.
	bare, err := parseCodexParams(json.RawMessage(`{"prompt":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(base, bare.overrides().Apply(base), cmp.Comparer(func(a, b func(string) string) bool { return a == nil && b == nil })); diff != "" {
		t.Errorf("bare call changed the options (-want +got):\n%s", diff)
	}
}
