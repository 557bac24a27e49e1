package appserver

import (
	"context"

	"github.com/google/uuid"
)

// Thread names (thread/name/set) live where Codex 0.169 keeps them, CODEX_HOME's
// session_index.jsonl (internal/sessionindex).

// ThreadNameSet (thread/name/set) renames a thread, loaded or not, as Codex 0.169 does; every subscriber of a
// loaded thread (the caller otherwise) hears thread/name/updated.
func (a *api) ThreadNameSet(ctx context.Context, c *Conn, p ThreadSetNameParams) (ThreadSetNameResponse, error) {
	r := a.r
	if p.Name == "" {
		return ThreadSetNameResponse{}, InvalidRequest("thread name must not be empty")
	}
	if _, err := uuid.Parse(p.ThreadID); err != nil {
		return ThreadSetNameResponse{}, InvalidRequest("invalid thread id: " + uuidError(p.ThreadID))
	}
	lt, loaded := r.get(p.ThreadID)
	if !loaded {
		if _, _, err := findRollout(codexHome(r.srv), p.ThreadID); err != nil {
			return ThreadSetNameResponse{}, errNoRollout(p.ThreadID)
		}
	}
	if err := r.warnPartial(r.store().Rename(p.ThreadID, p.Name)); err != nil {
		return ThreadSetNameResponse{}, internalError(err.Error())
	}
	if loaded {
		lt.mu.Lock()
		lt.info.Name = p.Name
		lt.mu.Unlock()
	}
	r.notifyThread(ctx, c, p.ThreadID, "thread/name/updated", ThreadNameUpdatedNotification{ThreadID: p.ThreadID, ThreadName: &p.Name})
	return ThreadSetNameResponse{}, nil
}

// nameOf is a thread's name: a loaded thread's own, else the latest in the index ("" when
// it has none).
func (r *threads) nameOf(id string) string {
	if lt, ok := r.get(id); ok {
		lt.mu.Lock()
		name := lt.info.Name
		lt.mu.Unlock()
		if name != "" {
			return name
		}
	}
	return r.store().Name(id)
}
