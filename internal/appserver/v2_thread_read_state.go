package appserver

import (
	"context"

	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/internal/host/ext"
	"github.com/gocodex/gocodex/internal/host/readstate"
)

// Read state (thread/read's readState, thread/list's readStates, the experimental
// thread/readState/update) is kept by the host's read state extension
// (internal/host/readstate); these are its app-server methods and notices.

type v2ReadState = readstate.ReadState

type readStateUpdateParams struct {
	ThreadID         string `json:"threadId"`
	ExpectedRevision string `json:"expectedRevision"`
	Operation        struct {
		Type string `json:"type"`
	} `json:"operation"`
}

type readStateResponse struct {
	ReadState v2ReadState `json:"readState"`
}

func (r *threads) registerReadState(s *Server) {
	s.Handle("thread/readState/update", Typed(r.readStateUpdate))
}

// reads is the host's read state extension.
func (r *threads) reads() *readstate.Extension {
	e, _ := ext.Find[*readstate.Extension](r.extensions())
	return e
}

// readStates are the read states of listed threads, by id.
func (r *threads) readStates(ts []v2Thread) map[string]v2ReadState {
	out := map[string]v2ReadState{}
	for _, t := range ts {
		out[t.ID] = *r.reads().Of(t.ID, true)
	}
	return out
}

// readStateFor is thread/read's readState: none for a thread with no rollout yet.
func (r *threads) readStateFor(t v2Thread) *v2ReadState {
	recorded := false
	if t.Path != nil {
		_, _, err := findRollout(codexHome(r.srv), t.ID)
		recorded = err == nil
	}
	return r.reads().Of(t.ID, recorded)
}

// readStateUpdate marks a thread read or unread, if the caller saw its current revision.
func (r *threads) readStateUpdate(ctx context.Context, c *Conn, p readStateUpdateParams) (readStateResponse, error) {
	if err := requireExperimental(c, "thread/readState/update"); err != nil {
		return readStateResponse{}, err
	}
	if p.Operation.Type != "read" && p.Operation.Type != "unread" {
		return readStateResponse{}, InvalidRequest("Invalid request: unknown variant `" + p.Operation.Type + "`, expected `read` or `unread`")
	}
	if err := r.threadExists(p.ThreadID); err != nil {
		return readStateResponse{}, err
	}
	out, err := r.reads().Mark(p.ThreadID, p.ExpectedRevision, p.Operation.Type)
	if err != nil {
		return readStateResponse{}, err
	}
	r.notifyThread(ctx, c, p.ThreadID, "thread/readState/changed", readstate.Changed{ThreadID: p.ThreadID, ReadState: out})
	return readStateResponse{out}, nil
}

// turnEndNotes puts the notices the extensions tell at a turn's end among the turn's last
// notifications where Codex 0.169 tells them: before the thread goes idle.
func turnEndNotes(notes []wire.V2Notification, ends []ext.Notice) []wire.V2Notification {
	if len(ends) == 0 {
		return notes
	}
	at := len(notes)
	for i, n := range notes {
		if n.Method == "thread/status/changed" || n.Method == "turn/completed" {
			at = i
			break
		}
	}
	return append(notes[:at:at], append(wireNotes(ends), notes[at:]...)...)
}
