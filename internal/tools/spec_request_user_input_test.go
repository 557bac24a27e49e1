package tools

import (
	"bytes"
	"github.com/gocodex/gocodex/tool"
	"os"
	"testing"
)

// The request_user_input entry, byte for byte as Codex 0.169 posted it for gpt-5.5 (captured
// from the reference binary's request to a local scripted model).
func TestRequestUserInputSpecMatchesCodex(t *testing.T) {
	want, err := os.ReadFile("testdata/codex-0.169-request_user_input.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := RequestUserInputSpec(); !bytes.Equal(bytes.TrimSpace(want), got) {
		t.Errorf("spec differs from Codex:\n got %s\nwant %s", got, want)
	}
}

// Codex offers it with every shell tool (and with none), after the shell tools and the plan
// tool, before apply_patch.
func TestRequestUserInputPlacement(t *testing.T) {
	h := allBuiltins()
	h[NameRequestUserInput] = stubHandler{}
	for _, tc := range []struct {
		opts tool.Options
		want []string
	}{
		{tool.Options{ShellType: "unified_exec", ApplyPatchToolType: "freeform", ViewImage: true, RequestUserInput: true},
			[]string{"exec_command", "write_stdin", "request_user_input", "apply_patch", "view_image"}},
		{tool.Options{ShellType: "default", PlanTool: true, ApplyPatchToolType: "function", RequestUserInput: true},
			[]string{"shell", "update_plan", "request_user_input", "apply_patch"}},
		{tool.Options{ShellType: "disabled", RequestUserInput: true}, []string{"request_user_input"}},
		{tool.Options{ShellType: "disabled"}, nil},
	} {
		if got := names(t, NewRegistry(tc.opts, h).Specs()); !equalStrings(got, tc.want) {
			t.Errorf("%+v: tools %v, want %v", tc.opts, got, tc.want)
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
