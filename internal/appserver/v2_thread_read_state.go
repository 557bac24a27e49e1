package appserver

import (
	"context"

	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/internal/jsonrpc"
	"github.com/gocodex/gocodex/protocol"
)

// Read state, as Codex 0.169 keeps it for a durable thread (thread/read's readState,
// thread/list's readStates, the experimental thread/readState/update): the first unread
// position (null when read; the earliest turn completed since the thread was last read; or
// the thread's start when marked unread) and an opaque revision that changes with each of
// these. A thread not yet recorded has none (null); one gocodex has no record of (written
// before this, or by another program) counts as read.

type v2ReadState struct {
	FirstUnread *unreadPosition `json:"firstUnread"`
	Revision    string          `json:"revision"`
}

type unreadPosition struct {
	Type   string `json:"type"` // "turn" or "threadStart"
	TurnID string `json:"turnId,omitempty"`
}

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

type readStateChanged struct {
	ThreadID  string      `json:"threadId"`
	ReadState v2ReadState `json:"readState"`
}

func (r *threads) registerReadState(s *Server) {
	s.Handle("thread/readState/update", Typed(r.readStateUpdate))
}

// defaultReadState is the state of a recorded thread gocodex has no entry for: read.
func defaultReadState(threadID string) v2ReadState {
	return v2ReadState{Revision: threadID}
}

// reads is the server's read state log, opened on first use.
func (r *threads) reads() *readStateLog {
	r.readOnce.Do(func() { r.readLog = newReadStateLog(codexHome(r.srv)) })
	return r.readLog
}

// readStateOf is a thread's read state; recorded says whether the thread has a rollout.
func (r *threads) readStateOf(threadID string, recorded bool) *v2ReadState {
	rs, ok, err := r.reads().get(threadID)
	if err != nil {
		r.srv.logger.Warn("read state unreadable", "err", err)
	}
	if ok {
		return &rs
	}
	if !recorded {
		return nil
	}
	rs = defaultReadState(threadID)
	return &rs
}

// readStates are the read states of listed threads, by id.
func (r *threads) readStates(ts []v2Thread) map[string]v2ReadState {
	out := map[string]v2ReadState{}
	for _, t := range ts {
		out[t.ID] = *r.readStateOf(t.ID, true)
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
	return r.readStateOf(t.ID, recorded)
}

// turnCompletedUnread marks a completed turn as the first unread one unless an earlier
// position is unread already; the revision changes either way. ok is false when nothing
// changed (an ephemeral thread, or the state could not be written).
func (r *threads) turnCompletedUnread(lt *loadedThread, turnID string) (_ v2ReadState, ok bool) {
	lt.mu.Lock()
	ephemeral := lt.info.Ephemeral
	lt.mu.Unlock()
	if ephemeral || turnID == "" {
		return v2ReadState{}, false
	}
	out, err := r.reads().update(lt.id, func(cur v2ReadState, _ bool) (v2ReadState, error) {
		if cur.FirstUnread == nil {
			cur.FirstUnread = &unreadPosition{Type: "turn", TurnID: turnID}
		}
		cur.Revision = newSubmissionID()
		return cur, nil
	})
	if err != nil {
		r.srv.logger.Warn("read state not updated", "thread", lt.id, "err", err)
		return v2ReadState{}, false
	}
	return out, true
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
	out, err := r.reads().update(p.ThreadID, func(cur v2ReadState, ok bool) (v2ReadState, error) {
		if !ok {
			cur = defaultReadState(p.ThreadID)
		}
		if cur.Revision != p.ExpectedRevision {
			return v2ReadState{}, InvalidRequest("read state changed")
		}
		next := v2ReadState{Revision: newSubmissionID()}
		if p.Operation.Type == "unread" {
			next.FirstUnread = &unreadPosition{Type: "threadStart"}
		}
		return next, nil
	})
	if err != nil {
		if _, isRPC := err.(*jsonrpc.Error); isRPC {
			return readStateResponse{}, err
		}
		return readStateResponse{}, internalError("read state: " + err.Error())
	}
	r.notifyThread(ctx, c, p.ThreadID, "thread/readState/changed", readStateChanged{p.ThreadID, out})
	return readStateResponse{out}, nil
}

// readStateNotes keeps the read state of a loaded thread as its turns complete, and puts
// the change among the turn's last notifications where Codex 0.169 tells it: before the
// thread goes idle (for clients with the experimental API: experimentalNotifications).
func (r *threads) readStateNotes(lt *loadedThread, ev protocol.Event, notes []wire.V2Notification) []wire.V2Notification {
	tc, ok := ev.Msg.(protocol.TurnCompleteEvent)
	if !ok {
		return notes
	}
	rs, ok := r.turnCompletedUnread(lt, tc.TurnID)
	if !ok {
		return notes
	}
	at := len(notes)
	for i, n := range notes {
		if n.Method == "thread/status/changed" || n.Method == "turn/completed" {
			at = i
			break
		}
	}
	note := wire.V2Notification{Method: "thread/readState/changed", Params: readStateChanged{lt.id, rs}}
	return append(notes[:at], append([]wire.V2Notification{note}, notes[at:]...)...)
}
