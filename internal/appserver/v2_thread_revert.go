package appserver

import (
	"context"
	"encoding/json"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/protocol"
)

// thread/revert, thread/inject_items and thread/approveGuardianDeniedAction.

// ThreadRevert (thread/revert) drops the turn beforeTurnId and every later one from the thread's history, its
// rollout (a thread_rolled_back marker, as thread/rollback writes) and its turns, then
// tells the thread's connections thread/reverted. Files the turns changed stay as they
// are, as in Codex.
func (a *api) ThreadRevert(ctx context.Context, c *Conn, p ThreadRevertParams) (ThreadRevertResponse, error) {
	r := a.r
	lt, err := r.loadedOrErr(p.ThreadID)
	if err != nil {
		if r.threadExists(p.ThreadID) != nil {
			return ThreadRevertResponse{}, err
		}
		return ThreadRevertResponse{}, InvalidRequest("thread not loaded: " + p.ThreadID)
	}
	if _, running := lt.runningTurn(); running {
		return ThreadRevertResponse{}, InvalidRequest("Cannot revert while a turn is in progress.")
	}
	// Codex 0.169 reverts by unloading the thread and loading it again, whether or not the
	// turn is then found: its clients see the status go notLoaded, then idle. gocodex edits
	// the loaded thread in place and tells the same.
	r.notifyThreadNow(lt, wire.V2Notification{Method: "thread/status/changed", Params: threadStatusChanged{lt.id, wire.V2ThreadStatus{Type: "notLoaded"}}},
		wire.V2Notification{Method: "thread/status/changed", Params: threadStatusChanged{lt.id, wire.V2ThreadStatus{Type: "idle"}}})
	turns := lt.turns()
	k := -1
	for i, t := range turns {
		if t.ID == p.BeforeTurnID {
			k = i
		}
	}
	if k < 0 {
		return ThreadRevertResponse{}, InvalidRequest("turn not found: " + p.BeforeTurnID)
	}
	// The engine counts the turns a user message started.
	n := 0
	for _, t := range turns[k:] {
		if hasUserMessage(t) {
			n++
		}
	}
	if n > 0 {
		if err := lt.th.SubmitWithID(newSubmissionID(), protocol.ThreadRollbackOp{NumTurns: n}); err != nil {
			return ThreadRevertResponse{}, internalError(err.Error())
		}
	}
	if err := app.ForgetTurns(ctx, codexHome(r.srv), p.ThreadID, lt.cfg.Cwd, n); n > 0 && err != nil {
		// As thread/rollback: the file snapshots keep the dropped turns; a later rewind of
		// files would refuse then.
		r.srv.logger.Warn("snapshots not reverted with the conversation", "thread", p.ThreadID, "err", err)
	}
	kept := turns[:k]
	lt.mu.Lock()
	proj := wire.NewV2Projector(lt.id, nil)
	proj.Seed(kept)
	lt.proj = proj
	lt.mu.Unlock()
	out := ThreadRevertResponse{Thread: lt.v2(false)}
	out.TurnsBackwardsCursor, out.ItemsBackwardsCursor = resumeCursors(kept)
	r.notifyThread(ctx, c, p.ThreadID, "thread/reverted", ThreadRevertedNotification{p.ThreadID})
	return out, nil
}

// ThreadInject_items (thread/inject_items) appends Responses API items to a loaded thread's history and rollout.
func (a *api) ThreadInject_items(ctx context.Context, c *Conn, p ThreadInjectItemsParams) (ThreadInjectItemsResponse, error) {
	r := a.r
	lt, err := r.loadedOrErr(p.ThreadID)
	if err != nil {
		return ThreadInjectItemsResponse{}, err
	}
	if len(p.Items) == 0 {
		return ThreadInjectItemsResponse{}, InvalidRequest("items must not be empty")
	}
	for _, it := range p.Items {
		if _, err := protocol.DecodeResponseItem(it); err != nil {
			return ThreadInjectItemsResponse{}, InvalidRequest("Invalid request: " + err.Error())
		}
	}
	if _, running := lt.runningTurn(); running {
		return ThreadInjectItemsResponse{}, InvalidRequest("Cannot inject items while a turn is in progress.")
	}
	if err := lt.th.SubmitWithID(newSubmissionID(), protocol.InjectItemsOp{Items: p.Items}); err != nil {
		return ThreadInjectItemsResponse{}, internalError(err.Error())
	}
	return ThreadInjectItemsResponse{}, nil
}

// ThreadApproveGuardianDeniedAction answers thread/approveGuardianDeniedAction.
//
// approveGuardianDenied: Codex's Guardian (its automatic reviewer of risky actions) is not
// part of gocodex, so no action of a gocodex thread is ever denied by it. The event is
// checked as Codex checks it first, then the method is refused.
func (a *api) ThreadApproveGuardianDeniedAction(ctx context.Context, c *Conn, p ThreadApproveGuardianDeniedActionParams) (ThreadApproveGuardianDeniedActionResponse, error) {
	var ev map[string]json.RawMessage
	if err := json.Unmarshal(p.Event, &ev); err != nil || ev == nil {
		return ThreadApproveGuardianDeniedActionResponse{}, InvalidRequest("invalid Guardian denial event: expected an object")
	}
	if _, ok := ev["id"]; !ok {
		return ThreadApproveGuardianDeniedActionResponse{}, InvalidRequest("invalid Guardian denial event: missing field `id`")
	}
	return ThreadApproveGuardianDeniedActionResponse{}, InvalidRequest("gocodex does not support Guardian reviews: there is no denied action to approve")
}

// dropUserTurns is a projector holding turns without the last n turns a user message
// started (and whatever followed them), as the engine's rollback counts them.
func dropUserTurns(threadID string, turns []wire.V2Turn, n int) *wire.V2Projector {
	k := len(turns)
	for k > 0 && n > 0 {
		k--
		if hasUserMessage(turns[k]) {
			n--
		}
	}
	proj := wire.NewV2Projector(threadID, nil)
	proj.Seed(turns[:k])
	return proj
}

type threadStatusChanged struct {
	ThreadID string              `json:"threadId"`
	Status   wire.V2ThreadStatus `json:"status"`
}

// notifyThreadNow queues notes, in order, for every connection that hears the thread: its
// subscribers and, for status changes, every other connection.
func (r *threads) notifyThreadNow(lt *loadedThread, notes ...wire.V2Notification) {
	lt.mu.Lock()
	queues := lt.queuesLocked()
	lt.mu.Unlock()
	for _, q := range queues {
		for _, n := range notes {
			q.push(n)
		}
	}
	lt.broadcastStatus(notes)
}
