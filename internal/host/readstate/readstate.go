// Package readstate is the host extension that keeps threads' read state, as Codex 0.169
// keeps it for a durable thread (thread/read's readState, thread/list's readStates, the
// experimental thread/readState/update): the first unread position (null when read; the
// earliest turn completed since the thread was last read; or the thread's start when
// marked unread) and an opaque revision that changes with each of these. A thread not yet
// recorded has none (null); one gocodex has no record of (written before this, or by
// another program) counts as read.
package readstate

import (
	"github.com/gocodex/gocodex/internal/host/ext"
	"github.com/gocodex/gocodex/internal/jsonrpc"
	"github.com/gocodex/gocodex/protocol"
)

// Name is the extension's name.
const Name = "readState"

// ReadState is a thread's read state (Codex's ThreadReadState).
type ReadState struct {
	FirstUnread *UnreadPosition `json:"firstUnread"`
	Revision    string          `json:"revision"`
}

// UnreadPosition is where reading starts again.
type UnreadPosition struct {
	Type   string `json:"type"` // "turn" or "threadStart"
	TurnID string `json:"turnId,omitempty"`
}

// Changed is thread/readState/changed's params.
type Changed struct {
	ThreadID  string    `json:"threadId"`
	ReadState ReadState `json:"readState"`
}

// Extension keeps the read state log (gocodex_read_state.jsonl).
type Extension struct {
	host ext.Host
	log  *stateLog
}

// New is the extension, ready for ext.New.
func New() *Extension { return &Extension{} }

func (e *Extension) Name() string { return Name }

// Init opens the log and tells a turn's completion among its last notices.
func (e *Extension) Init(h ext.Host) error {
	e.host, e.log = h, newLog(h.CodexHome())
	h.Hooks().TurnEnded = append(h.Hooks().TurnEnded, e.turnEnded)
	return nil
}

// defaultState is the state of a recorded thread gocodex has no entry for: read.
func defaultState(threadID string) ReadState {
	return ReadState{Revision: threadID}
}

// Of is a thread's read state; recorded says whether the thread has a rollout (one without
// has none, nil).
func (e *Extension) Of(threadID string, recorded bool) *ReadState {
	rs, ok, err := e.log.get(threadID)
	if err != nil {
		e.host.Logger().Warn("read state unreadable", "err", err)
	}
	if ok {
		return &rs
	}
	if !recorded {
		return nil
	}
	rs = defaultState(threadID)
	return &rs
}

// turnEnded marks a completed turn as the first unread one unless an earlier position is
// unread already; the revision changes either way. Nothing changes for an ephemeral thread,
// and nothing is told when the state could not be written.
func (e *Extension) turnEnded(t ext.Thread, tc protocol.TurnCompleteEvent) []ext.Notice {
	if t.Ephemeral() || tc.TurnID == "" {
		return nil
	}
	out, err := e.log.update(t.ID(), func(cur ReadState, _ bool) (ReadState, error) {
		if cur.FirstUnread == nil {
			cur.FirstUnread = &UnreadPosition{Type: "turn", TurnID: tc.TurnID}
		}
		cur.Revision = newRevision()
		return cur, nil
	})
	if err != nil {
		e.host.Logger().Warn("read state not updated", "thread", t.ID(), "err", err)
		return nil
	}
	return []ext.Notice{{Method: "thread/readState/changed", Params: Changed{t.ID(), out}}}
}

// Mark marks a thread read or unread (op), if the caller saw its current revision.
func (e *Extension) Mark(threadID, expectedRevision, op string) (ReadState, error) {
	out, err := e.log.update(threadID, func(cur ReadState, ok bool) (ReadState, error) {
		if !ok {
			cur = defaultState(threadID)
		}
		if cur.Revision != expectedRevision {
			return ReadState{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "read state changed"}
		}
		next := ReadState{Revision: newRevision()}
		if op == "unread" {
			next.FirstUnread = &UnreadPosition{Type: "threadStart"}
		}
		return next, nil
	})
	if err != nil {
		if _, isRPC := err.(*jsonrpc.Error); isRPC {
			return ReadState{}, err
		}
		return ReadState{}, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "read state: " + err.Error()}
	}
	return out, nil
}

// newRevision is a fresh opaque revision (a UUIDv7, as Codex's).
func newRevision() string { return ext.NewID() }
