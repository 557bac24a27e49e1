package faceopts

import (
	"testing"

	"github.com/spf13/pflag"

	"github.com/gocodex/gocodex/protocol"
)

func TestLoadOptions(t *testing.T) {
	ww, ro, dfa := protocol.SandboxWorkspaceWrite, protocol.SandboxReadOnly, protocol.SandboxDangerFullAccess
	cases := []struct {
		name     string
		args     []string
		mode     FullAutoMode
		sandbox  *protocol.SandboxMode
		approval string
	}{
		{"nothing", nil, FullAutoSandboxOnly, nil, ""},
		{"exec full-auto beats -s", []string{"--full-auto", "-s", "read-only"}, FullAutoSandboxOnly, &ww, ""},
		{"tui full-auto asks on request", []string{"--full-auto"}, FullAutoAsksOnRequest, &ww, "on-request"},
		{"tui -s after full-auto", []string{"--full-auto", "-s", "read-only", "-a", "never"}, FullAutoAsksOnRequest, &ro, "never"},
		{"bypass wins", []string{"--yolo", "-s", "read-only", "-a", "untrusted"}, FullAutoAsksOnRequest, &dfa, "never"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var o Flags
			fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
			o.Register(fs, Sandbox|Approval|FullAuto|Bypass|Config|Features)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			lo, err := o.LoadOptions(nil, tc.mode)
			if err != nil {
				t.Fatal(err)
			}
			got := lo.Overrides.SandboxMode
			if (got == nil) != (tc.sandbox == nil) || (got != nil && *got != *tc.sandbox) {
				t.Errorf("sandbox = %v, want %v", got, tc.sandbox)
			}
			approval := ""
			if lo.Overrides.ApprovalPolicy != nil {
				approval = lo.Overrides.ApprovalPolicy.String()
			}
			if approval != tc.approval {
				t.Errorf("approval = %q, want %q", approval, tc.approval)
			}
		})
	}
	var o Flags
	o.Sandbox = "workspace_write"
	if _, err := o.LoadOptions(nil, FullAutoSandboxOnly); err == nil {
		t.Error("a snake_case --sandbox value was accepted")
	}
	if got := FeatureOverrides([]string{"a=1"}, []string{"x"}, []string{"y"}); len(got) != 3 || got[1] != "features.x=true" || got[2] != "features.y=false" {
		t.Errorf("FeatureOverrides = %q", got)
	}
}
