package appserver

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// Pursuing an active thread goal, as Codex 0.169 does (observed, see
// e2e/testdata/codex_goal_continuation_observed.json):
//   - the model gets three tools, get_goal, create_goal and update_goal (their specs are
//     Codex's, goal_tools.json); their calls show no items, a change they make is told as
//     thread/goal/updated;
//   - while the goal is active, each model response's tokens (input not cached, plus
//     output) are added to it and told as thread/goal/updated with the turn's id (the
//     response that completes the goal included: gocodex hears its usage after its tool
//     ran, so it tells complete first, then the count, where Codex tells them the other
//     way round);
//   - when a turn ends and the goal is still active and the thread idle, a goal turn starts:
//     a "goal_objective" context item (the first time) and Codex's continuation message
//     (goal_continuation.txt, with the budget filled in) open it in place of user input;
//   - a goal over its token budget becomes budgetLimited and is not pursued further.
// gocodex does not start a goal turn after a turn that failed or was interrupted.

//go:embed goal_tools.json
var goalToolSpecs []byte

//go:embed goal_continuation.txt
var goalContinuationText string

// completionBudgetReport is what update_goal tells the model when it completes a goal.
const completionBudgetReport = "Goal achieved. Report final usage from this tool result's structured goal fields. If `goal.tokenBudget` is present, include token usage from `goal.tokensUsed` and `goal.tokenBudget`. If `goal.timeUsedSeconds` is greater than 0, summarize elapsed time in a concise, human-friendly form appropriate to the response language."

// goalTool is one of the goal tools, bound to the server's thread state.
type goalTool struct {
	r    *threads
	name string
	spec json.RawMessage
}

func (g goalTool) Spec() tool.Spec { return g.spec }

// goalTools are the tools every app-server thread offers its model.
func (r *threads) goalTools() []tool.Handler {
	var specs []json.RawMessage
	if err := json.Unmarshal(goalToolSpecs, &specs); err != nil {
		panic("goal_tools.json: " + err.Error()) // embedded, checked by the tests
	}
	out := make([]tool.Handler, 0, len(specs))
	for _, s := range specs {
		var head struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(s, &head)
		out = append(out, goalTool{r: r, name: head.Name, spec: s})
	}
	return out
}

// goalToolGoal is a goal as the tools show it to the model: Codex leaves out a null budget.
type goalToolGoal struct {
	ThreadID        string `json:"threadId"`
	Objective       string `json:"objective"`
	Status          string `json:"status"`
	TokenBudget     *int64 `json:"tokenBudget,omitempty"`
	TokensUsed      int64  `json:"tokensUsed"`
	TimeUsedSeconds int64  `json:"timeUsedSeconds"`
	CreatedAt       int64  `json:"createdAt"`
	UpdatedAt       int64  `json:"updatedAt"`
}

type goalToolOutput struct {
	Goal                   *goalToolGoal `json:"goal"`
	RemainingTokens        *int64        `json:"remainingTokens"`
	CompletionBudgetReport *string       `json:"completionBudgetReport"`
}

func toolOutput(g *v2ThreadGoal, report *string) string {
	out := goalToolOutput{CompletionBudgetReport: report}
	if g != nil {
		tg := goalToolGoal(*g)
		out.Goal = &tg
		if g.TokenBudget != nil {
			left := max(*g.TokenBudget-g.TokensUsed, 0)
			out.RemainingTokens = &left
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
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
		goal, err := g.r.goalOf(env.ThreadID)
		if err != nil {
			return tool.Result{Output: errorMessage(err)}, nil
		}
		return tool.Result{Output: toolOutput(goal, nil), Success: true}, nil
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
	var goal v2ThreadGoal
	err := g.r.state().update(func(d *threadStateDoc) error {
		if cur, ok := d.Goals[env.ThreadID]; ok && cur.Status != "complete" {
			return fmt.Errorf("cannot create a new goal because this thread has an unfinished goal; complete the existing goal first")
		}
		now := time.Now().Unix()
		goal = v2ThreadGoal{ThreadID: env.ThreadID, Objective: *objective, Status: "active", TokenBudget: budget, CreatedAt: now, UpdatedAt: now}
		setGoal(d, goal)
		delete(d.GoalTimeMs, env.ThreadID)
		return nil
	})
	if err != nil {
		return tool.Result{Output: errorMessage(err)}, nil
	}
	emitGoal(env, goal)
	return tool.Result{Output: toolOutput(&goal, nil), Success: true}, nil
}

func (g goalTool) update(ctx context.Context, env *tool.Env, status *string) (tool.Result, error) {
	if status == nil || (*status != "complete" && *status != "blocked" && *status != "paused") {
		return tool.Result{Output: "status must be one of complete, blocked, paused"}, nil
	}
	if *status == "complete" {
		// As Codex: a completed goal's usage includes the response that completes it.
		g.r.goalSync(ctx, env)
	}
	var goal v2ThreadGoal
	err := g.r.state().update(func(d *threadStateDoc) error {
		cur, ok := d.Goals[env.ThreadID]
		if !ok {
			return fmt.Errorf("this thread has no goal to update")
		}
		cur.Status, cur.UpdatedAt = *status, time.Now().Unix()
		setGoal(d, cur)
		goal = cur
		return nil
	})
	if err != nil {
		return tool.Result{Output: errorMessage(err)}, nil
	}
	emitGoal(env, goal)
	var report *string
	if goal.Status == "complete" {
		// The calling response's usage arrives after its tools: it still counts (Codex's
		// completed goal includes it).
		g.r.syncMu.Lock()
		if g.r.completing == nil {
			g.r.completing = map[string]bool{}
		}
		g.r.completing[env.ThreadID] = true
		g.r.syncMu.Unlock()
		s := completionBudgetReport
		report = &s
	}
	return tool.Result{Output: toolOutput(&goal, report), Success: true}, nil
}

func setGoal(d *threadStateDoc, g v2ThreadGoal) {
	if d.Goals == nil {
		d.Goals = map[string]v2ThreadGoal{}
	}
	d.Goals[g.ThreadID] = g
}

// emitGoal tells the change in the turn's event stream, so it keeps its place among the
// turn's other notifications.
func emitGoal(env *tool.Env, g v2ThreadGoal) {
	if env.Emit == nil {
		return
	}
	b, _ := json.Marshal(g)
	env.Emit(protocol.ThreadGoalUpdatedEvent{Goal: b})
}

// goalOf is a thread's goal, nil when it has none.
func (r *threads) goalOf(threadID string) (*v2ThreadGoal, error) {
	var goal *v2ThreadGoal
	err := r.state().read(func(d *threadStateDoc) {
		if g, ok := d.Goals[threadID]; ok {
			goal = &g
		}
	})
	return goal, err
}

// goalNotes turns the events of a loaded thread that concern its goal into notifications
// that go out ahead of the event's own: a goal tool's change, and the accounting of a
// model response's tokens while the goal is active. turnID is the running turn.
func (r *threads) goalNotes(lt *loadedThread, ev protocol.Event, turnID string) []wire.V2Notification {
	var tid *string
	if turnID != "" {
		tid = &turnID
	}
	switch m := ev.Msg.(type) {
	case protocol.ThreadGoalUpdatedEvent:
		if m.Sync != "" {
			r.goalSynced(m.Sync)
			return nil
		}
		var g v2ThreadGoal
		if json.Unmarshal(m.Goal, &g) != nil {
			return nil
		}
		return []wire.V2Notification{{Method: "thread/goal/updated", Params: goalUpdated{ThreadID: lt.id, TurnID: tid, Goal: g}}}
	case protocol.TokenCountEvent:
		if m.Info == nil {
			return nil
		}
		u := m.Info.LastTokenUsage
		spent := max(u.InputTokens-u.CachedInputTokens, 0) + u.OutputTokens
		r.syncMu.Lock()
		completing := r.completing[lt.id]
		delete(r.completing, lt.id)
		r.syncMu.Unlock()
		if cur, err := r.goalOf(lt.id); err != nil || cur == nil || (cur.Status != "active" && !completing) {
			return nil // the common case: no goal to count for, nothing locked or written
		}
		var goal *v2ThreadGoal
		_ = r.state().update(func(d *threadStateDoc) error {
			g, ok := d.Goals[lt.id]
			if !ok || (g.Status != "active" && !(completing && g.Status == "complete")) {
				return errNoChange
			}
			g.TokensUsed += spent
			if g.Status == "active" && g.TokenBudget != nil && g.TokensUsed >= *g.TokenBudget {
				g.Status, g.UpdatedAt = "budgetLimited", time.Now().Unix()
			}
			setGoal(d, g)
			goal = &g
			return nil
		})
		if goal == nil {
			return nil
		}
		return []wire.V2Notification{{Method: "thread/goal/updated", Params: goalUpdated{ThreadID: lt.id, TurnID: tid, Goal: *goal}}}
	}
	return nil
}

// errNoChange makes a state update write nothing.
var errNoChange = fmt.Errorf("no change")

// afterGoalEvent starts the next goal turn when a turn has completed, the goal is still
// active and the thread is idle.
func (r *threads) afterGoalEvent(lt *loadedThread, ev protocol.Event) {
	// (An interrupted turn reports no duration; its time is not counted.)
	switch m := ev.Msg.(type) {
	case protocol.TurnStartedEvent:
		r.syncMu.Lock()
		delete(r.goalQueued, lt.id) // the goal turn asked for (if any) has begun
		r.syncMu.Unlock()
	case protocol.TurnCompleteEvent:
		r.countGoalTime(lt, m.DurationMs)
		r.syncMu.Lock()
		setting := r.goalSettings[lt.id] > 0
		r.syncMu.Unlock()
		if m.Error == nil && !setting { // a thread/goal/set in flight decides itself
			r.pursueGoal(lt, false)
		}
	}
}

// countGoalTime adds a turn's duration to the time the thread's active goal has taken
// (timeUsedSeconds, whole seconds; the milliseconds are kept so short turns add up).
func (r *threads) countGoalTime(lt *loadedThread, durationMs *int64) {
	if durationMs == nil || *durationMs <= 0 {
		return
	}
	if cur, err := r.goalOf(lt.id); err != nil || cur == nil || cur.Status != "active" {
		return
	}
	_ = r.state().update(func(d *threadStateDoc) error {
		g, ok := d.Goals[lt.id]
		if !ok || g.Status != "active" {
			return errNoChange
		}
		if d.GoalTimeMs == nil {
			d.GoalTimeMs = map[string]int64{}
		}
		d.GoalTimeMs[lt.id] += *durationMs
		g.TimeUsedSeconds = d.GoalTimeMs[lt.id] / 1000
		setGoal(d, g)
		return nil
	})
}

// pursueGoal submits a goal turn if the thread's goal is active and none is asked for
// already; first says the goal was just set (the turn then carries the objective as
// context). The caller holds lt.sendMu: decisions are taken in the order of the thread's
// events, so a turn's end and a thread/goal/set never both start a goal turn.
func (r *threads) pursueGoal(lt *loadedThread, first bool) {
	if !lt.cfg.FeatureEnabled("goals", true) {
		return
	}
	goal, err := r.goalOf(lt.id)
	if err != nil || goal == nil || goal.Status != "active" {
		return
	}
	r.syncMu.Lock()
	queued := r.goalQueued[lt.id]
	first = first || r.goalFresh[lt.id] // a goal set since the last goal turn
	r.syncMu.Unlock()
	if queued {
		return
	}
	var items []json.RawMessage
	if first {
		// Codex's context item, its fields in Codex's order (type first).
		obj, _ := json.Marshal(struct {
			Type      string `json:"type"`
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
			Output    string `json:"output"`
		}{"function_call_output", "goal_objective", "agent", goal.Objective})
		items = append(items, obj)
	}
	type text struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	msg, _ := json.Marshal(struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		Content []text `json:"content"`
	}{"message", "user", []text{{"input_text", continuationText(*goal)}}})
	items = append(items, msg)
	if _, err := lt.th.Submit(protocol.GoalTurnOp{Items: items}); err != nil {
		r.srv.logger.Warn("goal turn not started", "thread", lt.id, "err", err)
		return
	}
	r.syncMu.Lock()
	if r.goalQueued == nil {
		r.goalQueued = map[string]bool{}
	}
	r.goalQueued[lt.id] = true
	delete(r.goalFresh, lt.id)
	r.syncMu.Unlock()
}

// markGoalFresh says the thread's next goal turn gives the objective (a goal was set).
func (r *threads) markGoalFresh(threadID string) {
	r.syncMu.Lock()
	if r.goalFresh == nil {
		r.goalFresh = map[string]bool{}
	}
	r.goalFresh[threadID] = true
	r.syncMu.Unlock()
}

// pursueGoalIfIdle is pursueGoal from outside the event pump (thread/goal/set, resume).
func (r *threads) pursueGoalIfIdle(lt *loadedThread, first bool) {
	lt.sendMu.Lock()
	defer lt.sendMu.Unlock()
	if _, running := lt.runningTurn(); !running {
		r.pursueGoal(lt, first)
	}
}

// continuationText is Codex's continuation message with the goal's budget.
func continuationText(g v2ThreadGoal) string {
	budget, remaining := "none", "unbounded"
	if g.TokenBudget != nil {
		budget = strconv.FormatInt(*g.TokenBudget, 10)
		remaining = strconv.FormatInt(max(*g.TokenBudget-g.TokensUsed, 0), 10)
	}
	return strings.NewReplacer("{{used}}", strconv.FormatInt(g.TokensUsed, 10), "{{budget}}", budget, "{{remaining}}", remaining).Replace(goalContinuationText)
}

// goalSync waits until the thread's events so far, the usage of the calling response among
// them, have been handled (or ctx ends, or a few seconds pass).
func (r *threads) goalSync(ctx context.Context, env *tool.Env) {
	if env.Emit == nil {
		return
	}
	token := newSubmissionID()
	done := make(chan struct{})
	r.syncMu.Lock()
	if r.syncs == nil {
		r.syncs = map[string]chan struct{}{}
	}
	r.syncs[token] = done
	r.syncMu.Unlock()
	defer func() {
		r.syncMu.Lock()
		delete(r.syncs, token)
		r.syncMu.Unlock()
	}()
	env.Emit(protocol.ThreadGoalUpdatedEvent{Sync: token})
	select {
	case <-done:
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
	}
}

func (r *threads) goalSynced(token string) {
	r.syncMu.Lock()
	if ch, ok := r.syncs[token]; ok {
		close(ch)
		delete(r.syncs, token)
	}
	r.syncMu.Unlock()
}

// goalSetting and goalSettingDone bracket a thread/goal/set of a loaded thread.
func (r *threads) goalSetting(threadID string) {
	r.syncMu.Lock()
	if r.goalSettings == nil {
		r.goalSettings = map[string]int{}
	}
	r.goalSettings[threadID]++
	r.syncMu.Unlock()
}

func (r *threads) goalSettingDone(threadID string) {
	r.syncMu.Lock()
	if r.goalSettings[threadID] > 1 {
		r.goalSettings[threadID]--
	} else {
		delete(r.goalSettings, threadID)
	}
	r.syncMu.Unlock()
}
