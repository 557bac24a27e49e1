package goals

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/host/ext"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// Pursuing an active thread goal, as Codex 0.169 does:
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

//go:embed goal_continuation.txt
var continuationTemplate string

// errNoChange makes a state update write nothing.
var errNoChange = fmt.Errorf("no change")

// beforeEvent turns the events of a loaded thread that concern its goal into notices that
// go out ahead of the event's own: a goal tool's change, and the accounting of a model
// response's tokens while the goal is active. turnID is the running turn.
func (e *Extension) beforeEvent(t ext.Thread, ev protocol.Event, turnID string) []ext.Notice {
	var tid *string
	if turnID != "" {
		tid = &turnID
	}
	id := t.ID()
	switch m := ev.Msg.(type) {
	case protocol.ThreadGoalUpdatedEvent:
		if m.Sync != "" {
			e.synced(m.Sync)
			return nil
		}
		var g Goal
		if json.Unmarshal(m.Goal, &g) != nil {
			return nil
		}
		return []ext.Notice{{Method: "thread/goal/updated", Params: Updated{ThreadID: id, TurnID: tid, Goal: g}}}
	case protocol.TokenCountEvent:
		if m.Info == nil {
			return nil
		}
		u := m.Info.LastTokenUsage
		spent := max(u.InputTokens-u.CachedInputTokens, 0) + u.OutputTokens
		e.mu.Lock()
		completing := e.completing[id]
		delete(e.completing, id)
		e.mu.Unlock()
		if cur, err := e.Of(id); err != nil || cur == nil || (cur.Status != "active" && !completing) {
			return nil // the common case: no goal to count for, nothing locked or written
		}
		var goal *Goal
		_ = e.Part.Update(func(s *state) error {
			g, ok := s.Goals[id]
			if !ok || (g.Status != "active" && !(completing && g.Status == "complete")) {
				return errNoChange
			}
			g.TokensUsed += spent
			if g.Status == "active" && g.TokenBudget != nil && g.TokensUsed >= *g.TokenBudget {
				g.Status, g.UpdatedAt = "budgetLimited", time.Now().Unix()
			}
			s.set(g)
			goal = &g
			return nil
		})
		if goal == nil {
			return nil
		}
		return []ext.Notice{{Method: "thread/goal/updated", Params: Updated{ThreadID: id, TurnID: tid, Goal: *goal}}}
	}
	return nil
}

// afterEvent starts the next goal turn when a turn has completed, the goal is still active
// and the thread is idle.
func (e *Extension) afterEvent(t ext.Thread, ev protocol.Event) {
	// (An interrupted turn reports no duration; its time is not counted.)
	switch m := ev.Msg.(type) {
	case protocol.TurnStartedEvent:
		e.mu.Lock()
		delete(e.queued, t.ID()) // the goal turn asked for (if any) has begun
		e.mu.Unlock()
	case protocol.TurnCompleteEvent:
		e.countTime(t.ID(), m.DurationMs)
		e.mu.Lock()
		setting := e.settings[t.ID()] > 0
		e.mu.Unlock()
		if m.Error == nil && !setting { // a goal setting in flight decides itself
			e.Pursue(t, false)
		}
	}
}

// countTime adds a turn's duration to the time the thread's active goal has taken
// (timeUsedSeconds, whole seconds; the milliseconds are kept so short turns add up).
func (e *Extension) countTime(id string, durationMs *int64) {
	if durationMs == nil || *durationMs <= 0 {
		return
	}
	if cur, err := e.Of(id); err != nil || cur == nil || cur.Status != "active" {
		return
	}
	_ = e.Part.Update(func(s *state) error {
		g, ok := s.Goals[id]
		if !ok || g.Status != "active" {
			return errNoChange
		}
		if s.GoalTimeMs == nil {
			s.GoalTimeMs = map[string]int64{}
		}
		s.GoalTimeMs[id] += *durationMs
		g.TimeUsedSeconds = s.GoalTimeMs[id] / 1000
		s.set(g)
		return nil
	})
}

// Pursue submits a goal turn if the thread's goal is active and none is asked for already;
// first says the goal was just set (the turn then carries the objective as context). The
// caller has the thread idle and holds its event order (no event is delivered meanwhile),
// so a turn's end and a goal setting never both start a goal turn.
func (e *Extension) Pursue(t ext.Thread, first bool) {
	if !t.FeatureEnabled("goals", true) {
		return
	}
	id := t.ID()
	goal, err := e.Of(id)
	if err != nil || goal == nil || goal.Status != "active" {
		return
	}
	e.mu.Lock()
	queued := e.queued[id]
	first = first || e.fresh[id] // a goal set since the last goal turn
	e.mu.Unlock()
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
	if _, err := t.Submit(protocol.GoalTurnOp{Items: items}); err != nil {
		e.Host.Logger().Warn("goal turn not started", "thread", id, "err", err)
		return
	}
	e.mu.Lock()
	e.queued[id] = true
	delete(e.fresh, id)
	e.mu.Unlock()
}

// MarkFresh says the thread's next goal turn gives the objective (a goal was set).
func (e *Extension) MarkFresh(threadID string) {
	e.mu.Lock()
	e.fresh[threadID] = true
	e.mu.Unlock()
}

// continuationText is Codex's continuation message with the goal's budget.
func continuationText(g Goal) string {
	budget, remaining := "none", "unbounded"
	if g.TokenBudget != nil {
		budget = strconv.FormatInt(*g.TokenBudget, 10)
		remaining = strconv.FormatInt(max(*g.TokenBudget-g.TokensUsed, 0), 10)
	}
	return strings.NewReplacer("{{used}}", strconv.FormatInt(g.TokensUsed, 10), "{{budget}}", budget, "{{remaining}}", remaining).Replace(continuationTemplate)
}

// sync waits until the thread's events so far, the usage of the calling response among
// them, have been handled (or ctx ends, or a few seconds pass).
func (e *Extension) sync(ctx context.Context, env *tool.Env) {
	if env.Emit == nil {
		return
	}
	token := ext.NewID()
	done := make(chan struct{})
	e.mu.Lock()
	e.syncs[token] = done
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		delete(e.syncs, token)
		e.mu.Unlock()
	}()
	env.Emit(protocol.ThreadGoalUpdatedEvent{Sync: token})
	select {
	case <-done:
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
	}
}

func (e *Extension) synced(token string) {
	e.mu.Lock()
	if ch, ok := e.syncs[token]; ok {
		close(ch)
		delete(e.syncs, token)
	}
	e.mu.Unlock()
}

// SetLoaded is Set for a loaded thread: until done is called, a turn's end starts no goal
// turn (the setting decides). The face calls done (once, whatever happened) in the
// thread's event order once it has told the change; t non-nil and idle, done starts the
// goal turn of a goal that is active, giving its objective.
func (e *Extension) SetLoaded(threadID string, objective, status *string, budget *int64) (g Goal, done func(t ext.Thread, idle bool), err error) {
	e.setting(threadID)
	g, err = e.Set(threadID, objective, status, budget)
	if err != nil {
		e.settingDone(threadID)
		return Goal{}, nil, err
	}
	if g.Status == "active" {
		e.MarkFresh(threadID)
	}
	return g, func(t ext.Thread, idle bool) {
		e.settingDone(threadID)
		if t != nil && idle && g.Status == "active" {
			e.Pursue(t, true)
		}
	}, nil
}

func (e *Extension) setting(threadID string) {
	e.mu.Lock()
	e.settings[threadID]++
	e.mu.Unlock()
}

func (e *Extension) settingDone(threadID string) {
	e.mu.Lock()
	if e.settings[threadID] > 1 {
		e.settings[threadID]--
	} else {
		delete(e.settings, threadID)
	}
	e.mu.Unlock()
}
