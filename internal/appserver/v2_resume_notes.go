package appserver

import (
	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/internal/rollout"
	"github.com/gocodex/gocodex/protocol"
)

// What Codex 0.169 tells a client that resumes or forks a thread with its whole history (not
// with excludeTurns): that this is deprecated, then the thread's latest token usage.

const fullHistoryDeprecated = "Full-history hydration is deprecated for paginated threads; use `excludeTurns: true`, then page with `thread/turns/list` and `thread/items/list`."

// sendResumeNotes sends them to c through its queue for the thread, so they come before the
// thread's next events.
func sendResumeNotes(c *Conn, lt *loadedThread, excludeTurns bool) {
	if excludeTurns { // Codex 0.169 says neither then
		return
	}
	lt.notifySub(c, wire.V2Notification{Method: "deprecationNotice", Params: deprecationNotice{Summary: fullHistoryDeprecated}})
	lt.mu.Lock()
	u, ok := lt.proj.LastUsage()
	lt.mu.Unlock()
	if ok {
		lt.notifySub(c, wire.V2Notification{Method: "thread/tokenUsage/updated", Params: u})
	}
}

// storedUsage is a stored thread's latest token usage, read from its rollout.
func storedUsage(ro *rollout.Rollout) (wire.V2TokenUsageUpdated, bool) {
	proj := wire.NewV2Projector(ro.Meta.ID, nil)
	for _, m := range ro.InitialMessages() {
		proj.Apply(protocol.Event{Msg: m})
	}
	return proj.LastUsage()
}

// sendForkNotes are the same for a fork, told before its thread/started, and only when the
// whole history was asked for (Codex 0.169 says neither with excludeTurns).
func sendForkNotes(c *Conn, lt *loadedThread, excludeTurns bool) {
	if excludeTurns {
		return
	}
	_ = c.Notify(c.Context(), "deprecationNotice", deprecationNotice{Summary: fullHistoryDeprecated})
	lt.mu.Lock()
	u, ok := lt.proj.LastUsage()
	lt.mu.Unlock()
	if ok {
		_ = c.Notify(c.Context(), "thread/tokenUsage/updated", u)
	}
}
