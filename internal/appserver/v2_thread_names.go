package appserver

import (
	"context"

	"github.com/google/uuid"
)

// Thread names (thread/name/set) live where Codex 0.169 keeps them, CODEX_HOME's
// session_index.jsonl (internal/sessionindex).

type setNameParams struct {
	ThreadID string `json:"threadId"`
	Name     string `json:"name"`
}

// setName renames a thread, loaded or not, as Codex 0.169 does; every subscriber of a
// loaded thread (the caller otherwise) hears thread/name/updated.
func (r *threads) setName(ctx context.Context, c *Conn, p setNameParams) (empty, error) {
	if p.Name == "" {
		return empty{}, InvalidRequest("thread name must not be empty")
	}
	if _, err := uuid.Parse(p.ThreadID); err != nil {
		return empty{}, InvalidRequest("invalid thread id: " + uuidError(p.ThreadID))
	}
	lt, loaded := r.get(p.ThreadID)
	if !loaded {
		if _, _, err := findRollout(codexHome(r.srv), p.ThreadID); err != nil {
			return empty{}, errNoRollout(p.ThreadID)
		}
	}
	if err := r.warnPartial(r.store().Rename(p.ThreadID, p.Name)); err != nil {
		return empty{}, internalError(err.Error())
	}
	if loaded {
		lt.mu.Lock()
		lt.info.Name = p.Name
		lt.mu.Unlock()
	}
	r.notifyThread(ctx, c, p.ThreadID, "thread/name/updated", struct {
		ThreadID   string `json:"threadId"`
		ThreadName string `json:"threadName"`
	}{p.ThreadID, p.Name})
	return empty{}, nil
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
