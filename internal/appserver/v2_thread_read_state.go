package appserver

import (
	"context"

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

// readStateOf is a thread's read state; recorded says whether the thread has a rollout.
func readStateOf(d *threadStateDoc, threadID string, recorded bool) *v2ReadState {
	if rs, ok := d.ReadStates[threadID]; ok {
		return &rs
	}
	if !recorded {
		return nil
	}
	rs := defaultReadState(threadID)
	return &rs
}

// readStates are the read states of threads, by id.
func (r *threads) readStates(ts []v2Thread) map[string]v2ReadState {
	out := map[string]v2ReadState{}
	_ = r.state().read(func(d *threadStateDoc) {
		for _, t := range ts {
			if rs := readStateOf(d, t.ID, true); rs != nil {
				out[t.ID] = *rs
			}
		}
	})
	return out
}

// readStateFor is thread/read's readState: none for a thread with no rollout yet.
func (r *threads) readStateFor(t v2Thread) *v2ReadState {
	recorded := false
	if t.Path != nil {
		_, _, err := findRollout(codexHome(r.srv), t.ID)
		recorded = err == nil
	}
	var rs *v2ReadState
	_ = r.state().read(func(d *threadStateDoc) { rs = readStateOf(d, t.ID, recorded) })
	return rs
}

// turnCompletedUnread marks a completed turn as the first unread one unless an earlier
// position is unread already; the revision changes either way.
func (r *threads) turnCompletedUnread(lt *loadedThread, turnID string) {
	lt.mu.Lock()
	ephemeral := lt.info.Ephemeral
	lt.mu.Unlock()
	if ephemeral || turnID == "" {
		return
	}
	err := r.state().update(func(d *threadStateDoc) error {
		rs := d.ReadStates[lt.id]
		if rs.FirstUnread == nil {
			rs.FirstUnread = &unreadPosition{Type: "turn", TurnID: turnID}
		}
		rs.Revision = newSubmissionID()
		if d.ReadStates == nil {
			d.ReadStates = map[string]v2ReadState{}
		}
		d.ReadStates[lt.id] = rs
		return nil
	})
	if err != nil {
		r.srv.logger.Warn("read state not updated", "thread", lt.id, "err", err)
	}
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
	var out v2ReadState
	err := r.state().update(func(d *threadStateDoc) error {
		cur := readStateOf(d, p.ThreadID, true)
		if cur.Revision != p.ExpectedRevision {
			return InvalidRequest("read state changed")
		}
		out = v2ReadState{Revision: newSubmissionID()}
		if p.Operation.Type == "unread" {
			out.FirstUnread = &unreadPosition{Type: "threadStart"}
		}
		if d.ReadStates == nil {
			d.ReadStates = map[string]v2ReadState{}
		}
		d.ReadStates[p.ThreadID] = out
		return nil
	})
	if err != nil {
		return readStateResponse{}, err
	}
	r.notifyThread(ctx, c, p.ThreadID, "thread/readState/changed", readStateChanged{p.ThreadID, out})
	return readStateResponse{out}, nil
}

// readStateEvent keeps the read state of a loaded thread as its turns complete.
func (r *threads) readStateEvent(lt *loadedThread, ev protocol.Event) {
	if tc, ok := ev.Msg.(protocol.TurnCompleteEvent); ok {
		r.turnCompletedUnread(lt, tc.TurnID)
	}
}
