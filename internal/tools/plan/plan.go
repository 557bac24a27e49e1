// Package plan is the update_plan tool: the model records its step list, the engine shows it
// to the client as a plan_update event, and the model is told "Plan updated". The tool keeps
// no state; the plan lives in the conversation and in the client.
package plan

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// Output is what the model receives after a successful update.
const Output = "Plan updated"

// Handler handles update_plan calls.
type Handler struct{}

// New returns the update_plan handler.
func New() *Handler { return &Handler{} }

// Spec is the update_plan spec Codex sends.
func (*Handler) Spec() tool.Spec { return tools.UpdatePlanSpec() }

// SupportsParallel lets plan updates run beside other calls: they touch nothing.
func (*Handler) SupportsParallel() bool { return true }

// Args are the arguments of an update_plan call.
type Args struct {
	Explanation *string             `json:"explanation"`
	Plan        []protocol.PlanItem `json:"plan"`
}

// Handle parses the arguments, emits plan_update and answers "Plan updated". Bad arguments
// are the model's mistake: it is told what was wrong and no event is sent.
func (*Handler) Handle(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
	a, err := Parse(call.Arguments)
	if err != nil {
		return tool.Result{Output: err.Error()}, nil
	}
	if env != nil && env.Emit != nil {
		env.Emit(protocol.PlanUpdateEvent{Explanation: a.Explanation, Plan: a.Plan})
	}
	return tool.Result{Output: Output, Success: true}, nil
}

// Parse reads update_plan arguments. `plan` is required; each step needs a step text and a
// status of pending, in_progress or completed.
func Parse(arguments string) (*Args, error) {
	var raw struct {
		Explanation *string            `json:"explanation"`
		Plan        *[]json.RawMessage `json:"plan"`
	}
	if err := json.Unmarshal([]byte(arguments), &raw); err != nil {
		return nil, fmt.Errorf("failed to parse function arguments: %v", err)
	}
	if raw.Plan == nil {
		return nil, fmt.Errorf("failed to parse function arguments: missing field `plan`")
	}
	out := &Args{Explanation: raw.Explanation, Plan: make([]protocol.PlanItem, 0, len(*raw.Plan))}
	for i, r := range *raw.Plan {
		var step struct {
			Step   *string `json:"step"`
			Status *string `json:"status"`
		}
		if err := json.Unmarshal(r, &step); err != nil {
			return nil, fmt.Errorf("failed to parse function arguments: plan[%d]: %v", i, err)
		}
		if step.Step == nil {
			return nil, fmt.Errorf("failed to parse function arguments: plan[%d]: missing field `step`", i)
		}
		if step.Status == nil {
			return nil, fmt.Errorf("failed to parse function arguments: plan[%d]: missing field `status`", i)
		}
		st := protocol.PlanStatus(*step.Status)
		switch st {
		case protocol.PlanPending, protocol.PlanInProgress, protocol.PlanCompleted:
		default:
			return nil, fmt.Errorf("failed to parse function arguments: plan[%d]: unknown variant `%s`, expected one of `pending`, `in_progress`, `completed`", i, *step.Status)
		}
		out.Plan = append(out.Plan, protocol.PlanItem{Step: *step.Step, Status: st})
	}
	return out, nil
}
