package goals

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/jsonrpc"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// The goal tools, as Codex 0.169 offers them: get_goal, create_goal and update_goal (their
// specs are Codex's, goal_tools.json); their calls show no items, a change they make is
// told as thread/goal/updated in the turn's event stream.

//go:embed goal_tools.json
var toolSpecs []byte

// completionBudgetReport is what update_goal tells the model when it completes a goal.
const completionBudgetReport = "Goal achieved. Report final usage from this tool result's structured goal fields. If `goal.tokenBudget` is present, include token usage from `goal.tokensUsed` and `goal.tokenBudget`. If `goal.timeUsedSeconds` is greater than 0, summarize elapsed time in a concise, human-friendly form appropriate to the response language."

// goalTool is one of the goal tools, bound to the extension.
type goalTool struct {
	e    *Extension
	name string
	spec json.RawMessage
}

func (g goalTool) Spec() tool.Spec { return g.spec }

// tools are the goal tools, for a thread whose configuration has the goals feature.
func (e *Extension) tools(featureEnabled func(string, bool) bool) []tool.Handler {
	if !featureEnabled("goals", true) {
		return nil
	}
	var specs []json.RawMessage
	if err := json.Unmarshal(toolSpecs, &specs); err != nil {
		panic("goal_tools.json: " + err.Error()) // embedded, checked by the tests
	}
	out := make([]tool.Handler, 0, len(specs))
	for _, s := range specs {
		var head struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(s, &head)
		out = append(out, goalTool{e: e, name: head.Name, spec: s})
	}
	return out
}

// toolGoal is a goal as the tools show it to the model: Codex leaves out a null budget.
type toolGoal struct {
	ThreadID        string `json:"threadId"`
	Objective       string `json:"objective"`
	Status          string `json:"status"`
	TokenBudget     *int64 `json:"tokenBudget,omitempty"`
	TokensUsed      int64  `json:"tokensUsed"`
	TimeUsedSeconds int64  `json:"timeUsedSeconds"`
	CreatedAt       int64  `json:"createdAt"`
	UpdatedAt       int64  `json:"updatedAt"`
}

type toolOutput struct {
	Goal                   *toolGoal `json:"goal"`
	RemainingTokens        *int64    `json:"remainingTokens"`
	CompletionBudgetReport *string   `json:"completionBudgetReport"`
}

func outputOf(g *Goal, report *string) string {
	out := toolOutput{CompletionBudgetReport: report}
	if g != nil {
		tg := toolGoal(*g)
		out.Goal = &tg
		if g.TokenBudget != nil {
			left := max(*g.TokenBudget-g.TokensUsed, 0)
			out.RemainingTokens = &left
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// errorMessage is an error's text without a JSON-RPC code.
func errorMessage(err error) string {
	if e, ok := err.(*jsonrpc.Error); ok {
		return e.Message
	}
	return err.Error()
}

func (g goalTool) Handle(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
	var args struct {
		Objective   *string `json:"objective"`
		TokenBudget *int64  `json:"token_budget"`
		Status      *string `json:"status"`
	}
	if strings.TrimSpace(call.Arguments) != "" {
		if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil {
			return tool.Result{Output: "failed to parse function arguments: " + err.Error()}, nil
		}
	}
	switch g.name {
	case "get_goal":
		goal, err := g.e.Of(env.ThreadID)
		if err != nil {
			return tool.Result{Output: errorMessage(err)}, nil
		}
		return tool.Result{Output: outputOf(goal, nil), Success: true}, nil
	case "create_goal":
		return g.create(env, args.Objective, args.TokenBudget)
	case "update_goal":
		return g.update(ctx, env, args.Status)
	}
	return tool.Result{Output: "unknown goal tool " + g.name}, nil
}

func (g goalTool) create(env *tool.Env, objective *string, budget *int64) (tool.Result, error) {
	if objective == nil || strings.TrimSpace(*objective) == "" {
		return tool.Result{Output: "objective must not be empty"}, nil
	}
	if budget != nil && *budget <= 0 {
		return tool.Result{Output: "token_budget must be positive"}, nil
	}
	var goal Goal
	err := g.e.Part.Update(func(s *state) error {
		if cur, ok := s.Goals[env.ThreadID]; ok && cur.Status != "complete" {
			return fmt.Errorf("cannot create a new goal because this thread has an unfinished goal; complete the existing goal first")
		}
		now := time.Now().Unix()
		goal = Goal{ThreadID: env.ThreadID, Objective: *objective, Status: "active", TokenBudget: budget, CreatedAt: now, UpdatedAt: now}
		s.set(goal)
		delete(s.GoalTimeMs, env.ThreadID)
		return nil
	})
	if err != nil {
		return tool.Result{Output: errorMessage(err)}, nil
	}
	emit(env, goal)
	return tool.Result{Output: outputOf(&goal, nil), Success: true}, nil
}

func (g goalTool) update(ctx context.Context, env *tool.Env, status *string) (tool.Result, error) {
	if status == nil || (*status != "complete" && *status != "blocked" && *status != "paused") {
		return tool.Result{Output: "status must be one of complete, blocked, paused"}, nil
	}
	if *status == "complete" {
		// As Codex: a completed goal's usage includes the response that completes it.
		g.e.sync(ctx, env)
	}
	var goal Goal
	err := g.e.Part.Update(func(s *state) error {
		cur, ok := s.Goals[env.ThreadID]
		if !ok {
			return fmt.Errorf("this thread has no goal to update")
		}
		cur.Status, cur.UpdatedAt = *status, time.Now().Unix()
		s.set(cur)
		goal = cur
		return nil
	})
	if err != nil {
		return tool.Result{Output: errorMessage(err)}, nil
	}
	emit(env, goal)
	var report *string
	if goal.Status == "complete" {
		// The calling response's usage arrives after its tools: it still counts (Codex's
		// completed goal includes it).
		g.e.mu.Lock()
		g.e.completing[env.ThreadID] = true
		g.e.mu.Unlock()
		s := completionBudgetReport
		report = &s
	}
	return tool.Result{Output: outputOf(&goal, report), Success: true}, nil
}

// emit tells the change in the turn's event stream, so it keeps its place among the
// turn's other notifications.
func emit(env *tool.Env, g Goal) {
	if env.Emit == nil {
		return
	}
	b, _ := json.Marshal(g)
	env.Emit(protocol.ThreadGoalUpdatedEvent{Goal: b})
}
