package appserver

import (
	"context"
	"time"

	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// Thread goals (thread/goal/get, /set, /clear), kept in the thread state file. Setting an
// active goal on an idle loaded thread starts pursuing it (v2_thread_goal_pursuit.go).

type v2ThreadGoal struct {
	ThreadID        string `json:"threadId"`
	Objective       string `json:"objective"`
	Status          string `json:"status"`
	TokenBudget     *int64 `json:"tokenBudget"`
	TokensUsed      int64  `json:"tokensUsed"`
	TimeUsedSeconds int64  `json:"timeUsedSeconds"`
	CreatedAt       int64  `json:"createdAt"`
	UpdatedAt       int64  `json:"updatedAt"`
}

type goalSetParams struct {
	ThreadID    string  `json:"threadId"`
	Objective   *string `json:"objective"`
	Status      *string `json:"status"`
	TokenBudget *int64  `json:"tokenBudget"`
	Origin      *string `json:"origin"`
}

type goalClearParams struct {
	ThreadID string  `json:"threadId"`
	Origin   *string `json:"origin"`
}

type goalResponse struct {
	Goal *v2ThreadGoal `json:"goal"`
}

type goalSetResponse struct {
	Goal v2ThreadGoal `json:"goal"`
}

type goalClearResponse struct {
	Cleared bool `json:"cleared"`
}

type goalUpdated struct {
	ThreadID string       `json:"threadId"`
	TurnID   *string      `json:"turnId"`
	Goal     v2ThreadGoal `json:"goal"`
}

// goalStatuses are ThreadGoalStatus's values.
var goalStatuses = map[string]bool{"active": true, "paused": true, "blocked": true, "usageLimited": true, "budgetLimited": true, "complete": true}

func (r *threads) registerGoals(s *Server) {
	s.Handle("thread/goal/get", Typed(r.goalGet))
	s.Handle("thread/goal/set", Typed(r.goalSet))
	s.Handle("thread/goal/clear", Typed(r.goalClear))
}

func (r *threads) goalGet(ctx context.Context, c *Conn, p threadIDParams) (goalResponse, error) {
	if err := r.goalsEnabled(p.ThreadID); err != nil {
		return goalResponse{}, err
	}
	if err := r.threadLive(p.ThreadID); err != nil {
		return goalResponse{}, err
	}
	var out goalResponse
	err := r.state().read(func(d *threadStateDoc) {
		if g, ok := d.Goals[p.ThreadID]; ok {
			out.Goal = &g
		}
	})
	return out, err
}

func (r *threads) goalSet(ctx context.Context, c *Conn, p goalSetParams) (goalSetResponse, error) {
	if err := r.goalsEnabled(p.ThreadID); err != nil {
		return goalSetResponse{}, err
	}
	if err := r.threadLive(p.ThreadID); err != nil {
		return goalSetResponse{}, err
	}
	if p.Objective != nil && *p.Objective == "" {
		return goalSetResponse{}, InvalidRequest("goal objective must not be empty")
	}
	if p.Status != nil && !goalStatuses[*p.Status] {
		return goalSetResponse{}, InvalidRequest("unknown goal status: " + *p.Status)
	}
	if _, loaded := r.get(p.ThreadID); loaded {
		// Cleared once the answer is out (below), or at once if the set fails.
		r.goalSetting(p.ThreadID)
	}
	var goal v2ThreadGoal
	err := r.state().update(func(d *threadStateDoc) error {
		now := time.Now().Unix()
		g, ok := d.Goals[p.ThreadID]
		switch {
		case p.Objective != nil && (!ok || g.Objective != *p.Objective):
			// A new objective is a new goal: usage starts again, active unless told.
			g = v2ThreadGoal{ThreadID: p.ThreadID, Objective: *p.Objective, Status: "active", CreatedAt: now}
			delete(d.GoalTimeMs, p.ThreadID)
		case !ok:
			return InvalidRequest("thread has no goal to update; set an objective")
		}
		if p.Status != nil {
			g.Status = *p.Status
		}
		if p.TokenBudget != nil {
			b := *p.TokenBudget
			g.TokenBudget = &b
		}
		g.UpdatedAt = now
		if d.Goals == nil {
			d.Goals = map[string]v2ThreadGoal{}
		}
		d.Goals[p.ThreadID] = g
		goal = g
		return nil
	})
	if err != nil {
		r.goalSettingDone(p.ThreadID)
		return goalSetResponse{}, err
	}
	note := wire.V2Notification{Method: "thread/goal/updated", Params: goalUpdated{ThreadID: p.ThreadID, Goal: goal}}
	lt, loaded := r.get(p.ThreadID)
	if !loaded {
		r.goalSettingDone(p.ThreadID)
		notifyAfter(ctx, c, []wire.V2Notification{note})
		return goalSetResponse{goal}, nil
	}
	if goal.Status == "active" {
		r.markGoalFresh(p.ThreadID)
	}
	// In the thread's event order: thread/goal/updated, then (an active goal on an idle
	// thread) the goal turn. Until then the event pump starts none (goalSetting).
	jsonrpc.AfterReply(ctx, func() {
		lt.sendMu.Lock()
		lt.mu.Lock()
		_, subscribed := lt.queues[c]
		lt.mu.Unlock()
		r.notifyThreadNow(lt, note)
		if !subscribed {
			_ = c.Notify(c.Context(), note.Method, note.Params)
		}
		r.goalSettingDone(p.ThreadID)
		if _, running := lt.runningTurn(); !running && goal.Status == "active" {
			r.pursueGoal(lt, true)
		}
		lt.sendMu.Unlock()
	})
	return goalSetResponse{goal}, nil
}

func (r *threads) goalClear(ctx context.Context, c *Conn, p goalClearParams) (goalClearResponse, error) {
	if err := r.goalsEnabled(p.ThreadID); err != nil {
		return goalClearResponse{}, err
	}
	if err := r.threadLive(p.ThreadID); err != nil {
		return goalClearResponse{}, err
	}
	var cleared bool
	err := r.state().update(func(d *threadStateDoc) error {
		_, cleared = d.Goals[p.ThreadID]
		delete(d.Goals, p.ThreadID)
		delete(d.GoalTimeMs, p.ThreadID)
		return nil
	})
	if err != nil {
		return goalClearResponse{}, err
	}
	if cleared {
		r.notifyThread(ctx, c, p.ThreadID, "thread/goal/cleared", threadIDParams{p.ThreadID})
	}
	return goalClearResponse{cleared}, nil
}

// notifyThread sends a notification once the answer is out: through the thread's
// subscriber queues (in order with its other notifications) when it is loaded, and to the
// caller directly when the caller is not subscribed.
func (r *threads) notifyThread(ctx context.Context, c *Conn, threadID, method string, params any) {
	n := wire.V2Notification{Method: method, Params: params}
	jsonrpc.AfterReply(ctx, func() {
		lt, loaded := r.get(threadID)
		subscribed := false
		if loaded {
			lt.mu.Lock()
			_, subscribed = lt.queues[c]
			lt.mu.Unlock()
			r.notifyThreadNow(lt, n)
		}
		if !subscribed {
			_ = c.Notify(c.Context(), method, params)
		}
	})
}

// threadLive is threadExists for methods that refuse an archived thread as unknown, as
// Codex 0.169's goal methods do.
func (r *threads) threadLive(id string) error {
	if _, ok := r.get(id); ok {
		return nil
	}
	_, archived, err := findRollout(codexHome(r.srv), id)
	if err == nil && archived {
		return errNoThread(id)
	}
	return err
}

// goalsEnabled is Codex's answer when the goals feature is off ([features] goals = false):
// for the loaded thread's configuration, else the server's.
func (r *threads) goalsEnabled(threadID string) error {
	cfg := r.srv.opts.Config
	if lt, ok := r.get(threadID); ok {
		cfg = lt.cfg
	}
	if cfg != nil && !cfg.FeatureEnabled("goals", true) {
		return InvalidRequest("goals feature is disabled")
	}
	return nil
}
