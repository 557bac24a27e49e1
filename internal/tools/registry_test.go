package tools

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/gocodex/gocodex/tool"
	"github.com/google/go-cmp/cmp"
)

type stubHandler struct{ spec tool.Spec }

func (s stubHandler) Spec() tool.Spec { return s.spec }
func (stubHandler) Handle(context.Context, *tool.Env, tool.Call) (tool.Result, error) {
	return tool.Result{}, nil
}

func allBuiltins() map[string]tool.Handler {
	m := map[string]tool.Handler{}
	for _, n := range []string{NameShell, NameShellCommand, NameExecCommand, NameWriteStdin, NameLocalShell, NameApplyPatch, NameUpdatePlan, NameViewImage} {
		m[n] = stubHandler{}
	}
	return m
}

func names(t *testing.T, specs []tool.Spec) []string {
	t.Helper()
	var out []string
	for _, s := range specs {
		var head struct{ Type, Name string }
		if err := json.Unmarshal(s, &head); err != nil {
			t.Fatalf("spec is not JSON: %v\n%s", err, s)
		}
		if head.Name == "" {
			out = append(out, head.Type)
		} else {
			out = append(out, head.Name)
		}
	}
	return out
}

func TestPlanPerModel(t *testing.T) {
	tests := []struct {
		name string
		opts tool.Options
		want []string
	}{
		{"unknown model fallback", tool.Options{}, []string{"shell"}},
		{"default shell", tool.Options{ShellType: "default", PlanTool: true}, []string{"shell", "update_plan"}},
		{"shell_command", tool.Options{ShellType: "shell_command", ApplyPatchToolType: "freeform", PlanTool: true, ViewImage: true},
			[]string{"shell_command", "update_plan", "apply_patch", "view_image"}},
		{"unified exec", tool.Options{ShellType: "unified_exec", ApplyPatchToolType: "freeform", PlanTool: true, ViewImage: true},
			[]string{"exec_command", "write_stdin", "update_plan", "apply_patch", "view_image"}},
		{"local shell", tool.Options{ShellType: "local", ApplyPatchToolType: "function"}, []string{"local_shell", "apply_patch"}},
		{"disabled", tool.Options{ShellType: "disabled"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRegistry(tc.opts, allBuiltins())
			if diff := cmp.Diff(tc.want, names(t, r.Specs())); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestMissingHandlerIsNotOffered(t *testing.T) {
	r := NewRegistry(tool.Options{ShellType: "unified_exec", PlanTool: true}, map[string]tool.Handler{NameUpdatePlan: stubHandler{}})
	if diff := cmp.Diff([]string{"update_plan"}, names(t, r.Specs())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, ok := r.Lookup(tool.Call{Name: "exec_command"}); ok {
		t.Error("exec_command has no handler and must not resolve")
	}
}

// TestSpecsMatchCodex compares our specs with the `tools` array Codex 0.169 posted for
// gpt-5.5 (captured from the reference binary against a local mock server). The apply_patch
// grammar is our own text, so only its envelope is compared.
func TestSpecsMatchCodex(t *testing.T) {
	data, err := os.ReadFile("testdata/codex-0.169-gpt-5.5-tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var captured []map[string]any
	if err := json.Unmarshal(data, &captured); err != nil {
		t.Fatal(err)
	}
	opts := tool.Options{ShellType: "unified_exec", ApplyPatchToolType: "freeform", ViewImage: true}
	for _, want := range captured {
		name := want["name"].(string)
		spec, ok := BuiltinSpec(name, opts)
		if !ok {
			t.Errorf("no spec for %s", name)
			continue
		}
		var got map[string]any
		if err := json.Unmarshal(spec, &got); err != nil {
			t.Fatal(err)
		}
		if name == NameApplyPatch {
			delete(want["format"].(map[string]any), "definition")
			delete(got["format"].(map[string]any), "definition")
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s differs from Codex (-codex +ours):\n%s", name, diff)
		}
	}
}

// TestSpecBytes pins the exact bytes (key order included) of the specs Codex 0.169 does not
// send in any configuration we could capture, so a change is always deliberate.
func TestSpecBytes(t *testing.T) {
	got := map[string]json.RawMessage{}
	for _, tc := range []struct {
		key  string
		spec tool.Spec
	}{
		{"shell", ShellSpec()},
		{"shell_command", ShellCommandSpec(true)},
		{"shell_command_no_login", ShellCommandSpec(false)},
		{"exec_command", ExecCommandSpec(true)},
		{"write_stdin", WriteStdinSpec()},
		{"apply_patch_freeform", ApplyPatchFreeformSpec()},
		{"apply_patch_function", ApplyPatchFunctionSpec()},
		{"update_plan", UpdatePlanSpec()},
		{"view_image", ViewImageSpec()},
	} {
		if !json.Valid(tc.spec) {
			t.Fatalf("%s: invalid JSON", tc.key)
		}
		got[tc.key] = json.RawMessage(tc.spec)
	}
	for key, spec := range got {
		goldenBytes(t, "specs/"+key+".json", string(spec)+"\n")
	}
	// Codex's key order: type, name, description, strict, parameters.
	want := `{"type":"function","name":"update_plan","description":"Updates the task plan.\nProvide an optional explanation and a list of plan items, each with a step and status.\nAt most one step can be in_progress at a time.\n","strict":false,"parameters":{"type":"object","properties":{"explanation":{"type":"string"},"plan":{"type":"array","description":"The list of steps","items":{"type":"object","properties":{"status":{"type":"string","description":"One of: pending, in_progress, completed"},"step":{"type":"string"}},"required":["step","status"],"additionalProperties":false}}},"required":["plan"],"additionalProperties":false}}`
	if string(UpdatePlanSpec()) != want {
		t.Errorf("update_plan spec:\n got %s\nwant %s", UpdatePlanSpec(), want)
	}
}

func TestRegistryAddAndLookup(t *testing.T) {
	r := NewRegistry(tool.Options{ShellType: "local"}, allBuiltins())
	mcp := stubHandler{spec: tool.Spec(`{"type":"namespace","name":"mcp__docs__","description":"d","tools":[]}`)}
	if err := r.Add(mcp); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(mcp); err == nil {
		t.Error("second Add of the same name should fail")
	}
	if err := r.Add(stubHandler{spec: tool.Spec(`{"type":"web_search"}`)}); err == nil {
		t.Error("a spec without a name cannot be dispatched and should fail")
	}
	if _, ok := r.Lookup(tool.Call{Namespace: "mcp__docs__", Name: "search"}); !ok {
		t.Error("namespaced call should resolve to the namespace handler")
	}
	if _, ok := r.Lookup(tool.Call{Kind: tool.LocalShellCall}); !ok {
		t.Error("local_shell_call should resolve to the local_shell handler")
	}
	if got := UnsupportedOutput(tool.Call{Name: "nope"}); got != "unsupported call: nope" {
		t.Errorf("UnsupportedOutput = %q", got)
	}
	if got := UnsupportedOutput(tool.Call{Kind: tool.CustomCall, Name: "nope"}); got != "unsupported custom tool call: nope" {
		t.Errorf("UnsupportedOutput custom = %q", got)
	}
}
