package plan

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

func TestHandle(t *testing.T) {
	expl := "why"
	tests := []struct {
		name      string
		args      string
		wantOut   string
		wantOK    bool
		wantEvent *protocol.PlanUpdateEvent
	}{
		{
			name:    "plan with explanation",
			args:    `{"explanation":"why","plan":[{"step":"read","status":"completed"},{"step":"write","status":"in_progress"},{"step":"test","status":"pending"}]}`,
			wantOut: "Plan updated", wantOK: true,
			wantEvent: &protocol.PlanUpdateEvent{Explanation: &expl, Plan: []protocol.PlanItem{
				{Step: "read", Status: protocol.PlanCompleted}, {Step: "write", Status: protocol.PlanInProgress}, {Step: "test", Status: protocol.PlanPending}}},
		},
		{
			name: "empty plan", args: `{"plan":[]}`, wantOut: "Plan updated", wantOK: true,
			wantEvent: &protocol.PlanUpdateEvent{Plan: []protocol.PlanItem{}},
		},
		{name: "not json", args: `{`, wantOut: "failed to parse function arguments: unexpected end of JSON input"},
		{name: "missing plan", args: `{}`, wantOut: "failed to parse function arguments: missing field `plan`"},
		{name: "missing status", args: `{"plan":[{"step":"a"}]}`, wantOut: "failed to parse function arguments: plan[0]: missing field `status`"},
		{name: "bad status", args: `{"plan":[{"step":"a","status":"done"}]}`,
			wantOut: "failed to parse function arguments: plan[0]: unknown variant `done`, expected one of `pending`, `in_progress`, `completed`"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var events []protocol.EventMsg
			env := &tool.Env{Emit: func(m protocol.EventMsg) { events = append(events, m) }}
			res, err := New().Handle(context.Background(), env, tool.Call{Kind: tool.FunctionCall, CallID: "c", Name: "update_plan", Arguments: tc.args})
			if err != nil {
				t.Fatalf("Handle error: %v", err)
			}
			if res.Output != tc.wantOut || res.Success != tc.wantOK {
				t.Errorf("result = %q success=%v, want %q success=%v", res.Output, res.Success, tc.wantOut, tc.wantOK)
			}
			var want []protocol.EventMsg
			if tc.wantEvent != nil {
				want = []protocol.EventMsg{*tc.wantEvent}
			}
			if diff := cmp.Diff(want, events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSpecIsRegistrySpec(t *testing.T) {
	if got, want := string(New().Spec()), string(tools.UpdatePlanSpec()); got != want {
		t.Errorf("spec differs from the registry's")
	}
	if !strings.Contains(string(New().Spec()), `"name":"update_plan"`) {
		t.Error("spec has the wrong name")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(`{"plan":[{"step":"a","status":"pending"}]}`)
	f.Add(`{"explanation":null,"plan":[]}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, s string) {
		a, err := Parse(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "failed to parse function arguments") {
				t.Errorf("error without the Codex prefix: %v", err)
			}
			return
		}
		for _, p := range a.Plan {
			switch p.Status {
			case protocol.PlanPending, protocol.PlanInProgress, protocol.PlanCompleted:
			default:
				t.Errorf("accepted status %q", p.Status)
			}
		}
	})
}
