package appserver

import (
	"context"

	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/internal/host/ext"
	"github.com/gocodex/gocodex/internal/host/goals"
	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// Thread goals (thread/goal/get, /set, /clear) are kept and pursued by the host's goals
// extension (internal/host/goals). Setting an active goal on an idle loaded thread starts
// pursuing it.

type v2ThreadGoal = goals.Goal

type goalUpdated = goals.Updated

// goals is the host's goals extension.
func (r *threads) goals() *goals.Extension {
	e, _ := ext.Find[*goals.Extension](r.extensions())
	return e
}

// ThreadGoalGet answers thread/goal/get.
func (a *api) ThreadGoalGet(ctx context.Context, c *Conn, p ThreadGoalGetParams) (ThreadGoalGetResponse, error) {
	r := a.r
	if err := r.goalsEnabled(p.ThreadID); err != nil {
		return ThreadGoalGetResponse{}, err
	}
	if err := r.threadLive(p.ThreadID); err != nil {
		return ThreadGoalGetResponse{}, err
	}
	g, err := r.goals().Of(p.ThreadID)
	return ThreadGoalGetResponse{g}, err
}

// ThreadGoalSet answers thread/goal/set.
func (a *api) ThreadGoalSet(ctx context.Context, c *Conn, p ThreadGoalSetParams) (ThreadGoalSetResponse, error) {
	r := a.r
	status := (*string)(p.Status)
	if err := r.goalsEnabled(p.ThreadID); err != nil {
		return ThreadGoalSetResponse{}, err
	}
	if err := r.threadLive(p.ThreadID); err != nil {
		return ThreadGoalSetResponse{}, err
	}
	if p.Objective != nil && *p.Objective == "" {
		return ThreadGoalSetResponse{}, InvalidRequest("goal objective must not be empty")
	}
	if status != nil && !goals.ValidStatus(*status) {
		return ThreadGoalSetResponse{}, InvalidRequest("unknown goal status: " + *status)
	}
	gs := r.goals()
	lt, loaded := r.get(p.ThreadID)
	if !loaded {
		goal, err := gs.Set(p.ThreadID, p.Objective, status, p.TokenBudget)
		if err != nil {
			return ThreadGoalSetResponse{}, err
		}
		notifyAfter(ctx, c, []wire.V2Notification{goalUpdatedNote(p.ThreadID, goal)})
		return ThreadGoalSetResponse{goal}, nil
	}
	goal, done, err := gs.SetLoaded(p.ThreadID, p.Objective, status, p.TokenBudget)
	if err != nil {
		return ThreadGoalSetResponse{}, err
	}
	note := goalUpdatedNote(p.ThreadID, goal)
	if _, still := r.get(p.ThreadID); !still { // unloaded meanwhile
		done(nil, false)
		notifyAfter(ctx, c, []wire.V2Notification{note})
		return ThreadGoalSetResponse{goal}, nil
	}
	// In the thread's event order: thread/goal/updated, then (an active goal on an idle
	// thread) the goal turn.
	jsonrpc.AfterReply(ctx, func() {
		lt.sendMu.Lock()
		defer lt.sendMu.Unlock()
		lt.mu.Lock()
		_, subscribed := lt.queues[c]
		lt.mu.Unlock()
		r.notifyThreadNow(lt, note)
		if !subscribed {
			_ = c.Notify(c.Context(), note.Method, note.Params)
		}
		_, running := lt.runningTurn()
		done(extThread{lt}, !running)
	})
	return ThreadGoalSetResponse{goal}, nil
}

func goalUpdatedNote(threadID string, g v2ThreadGoal) wire.V2Notification {
	return wire.V2Notification{Method: "thread/goal/updated", Params: goalUpdated{ThreadID: threadID, Goal: g}}
}

// ThreadGoalClear answers thread/goal/clear.
func (a *api) ThreadGoalClear(ctx context.Context, c *Conn, p ThreadGoalClearParams) (ThreadGoalClearResponse, error) {
	r := a.r
	if err := r.goalsEnabled(p.ThreadID); err != nil {
		return ThreadGoalClearResponse{}, err
	}
	if err := r.threadLive(p.ThreadID); err != nil {
		return ThreadGoalClearResponse{}, err
	}
	cleared, err := r.goals().Clear(p.ThreadID)
	if err != nil {
		return ThreadGoalClearResponse{}, err
	}
	if cleared {
		r.notifyThread(ctx, c, p.ThreadID, "thread/goal/cleared", ThreadGoalClearedNotification{p.ThreadID})
	}
	return ThreadGoalClearResponse{cleared}, nil
}

// pursueGoalIfIdle starts pursuing a loaded thread's active goal from outside the event
// pump (resume), in the thread's event order.
func (r *threads) pursueGoalIfIdle(lt *loadedThread, first bool) {
	lt.sendMu.Lock()
	defer lt.sendMu.Unlock()
	if _, running := lt.runningTurn(); !running {
		r.goals().Pursue(extThread{lt}, first)
	}
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
