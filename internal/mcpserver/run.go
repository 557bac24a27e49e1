package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/protocol"
)

// methodEvent is the notification every engine event travels in.
const methodEvent = "codex/event"

// interruptGrace bounds how long a cancelled call waits for its turn to report the abort.
const interruptGrace = 10 * time.Second

// eventMeta ties a codex/event notification to the tool call and the thread.
type eventMeta struct {
	RequestID json.RawMessage `json:"requestId"`
	ThreadID  string          `json:"threadId,omitempty"`
}

// eventParams encodes a codex/event notification's params: `_meta` first, then the event's
// own fields (id, msg), as Codex flattens them.
func eventParams(meta eventMeta, ev protocol.Event) (json.RawMessage, error) {
	m, err := protocol.Marshal(meta)
	if err != nil {
		return nil, err
	}
	e, err := protocol.Marshal(ev)
	if err != nil {
		return nil, err
	}
	if len(e) < 2 || e[0] != '{' {
		return nil, fmt.Errorf("event encodes as %q, not an object", e)
	}
	out := make([]byte, 0, len(m)+len(e)+10)
	out = append(out, `{"_meta":`...)
	out = append(out, m...)
	if string(e) != "{}" {
		out = append(out, ',')
	}
	out = append(out, e[1:]...)
	return out, nil
}

// call is one running tool call: what its events and elicitations are tagged with.
type call struct {
	s      *session
	conn   *rawConn
	entry  *threadEntry
	th     app.Thread
	rawID  json.RawMessage
	textID string

	// elicitations are the approval requests still waiting for the client.
	elicitations sync.WaitGroup
}

// runTurn submits the prompt and streams the thread's events to the client until the turn
// ends; the result is the turn's last agent message. The first turn of a thread is
// submitted under the tools/call id, so that its events carry it (as Codex does); replies
// get fresh submission ids.
func (s *session) runTurn(ctx context.Context, req *mcp.CallToolRequest, e *threadEntry, prompt string, first bool) (*mcp.CallToolResult, error) {
	th := e.th
	conn := s.connection()
	if conn == nil {
		return nil, errors.New("mcp-server: no connection")
	}
	rawID, textID := requestID(req)
	c := &call{s: s, conn: conn, entry: e, th: th, rawID: rawID, textID: textID}
	// Elicitations end with the call: a turn that ended (or a client that left) leaves
	// nothing to approve.
	ectx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		c.elicitations.Wait()
	}()

	op := protocol.UserInputOp{Items: []protocol.InputItem{protocol.TextInput(prompt)}}
	if first && textID != "" {
		if err := th.SubmitWithID(textID, op); err != nil {
			return threadResult(th.ID(), "Failed to submit initial prompt: "+err.Error(), true), nil
		}
	} else if _, err := th.Submit(op); err != nil {
		return threadResult(th.ID(), "Failed to submit user input: "+err.Error(), true), nil
	}
	return c.stream(ctx, ectx)
}

func (c *call) stream(ctx, ectx context.Context) (*mcp.CallToolResult, error) {
	var turnErr string
	for {
		ev, err := c.th.NextEvent(ctx)
		if err != nil {
			if ctx.Err() != nil {
				c.interrupt()
				return nil, ctx.Err()
			}
			return threadResult(c.th.ID(), "Codex runtime error: "+err.Error(), true), nil
		}
		if err := c.forward(ctx, ev); err != nil {
			// Nobody is listening any more (cancelled, or the connection is gone): stop
			// the turn rather than leave it running on a thread no call drives.
			c.interrupt()
			return nil, err
		}
		switch msg := ev.Msg.(type) {
		case protocol.ExecApprovalRequestEvent:
			c.askExec(ectx, ev.ID, msg)
		case protocol.ApplyPatchApprovalRequestEvent:
			c.askPatch(ectx, ev.ID, msg)
		case protocol.RequestUserInputEvent:
			// An MCP client has no way to answer the model's questions: no answers, as
			// exec gives.
			if _, err := c.th.Submit(protocol.UserInputAnswerOp{ID: msg.TurnID}); err != nil {
				return threadResult(c.th.ID(), "Codex runtime error: "+err.Error(), true), nil
			}
		case protocol.ErrorEvent:
			turnErr = msg.Message
		case protocol.TurnCompleteEvent:
			if turnErr != "" {
				return threadResult(c.th.ID(), turnErr, true), nil
			}
			text := ""
			if msg.LastAgentMessage != nil {
				text = *msg.LastAgentMessage
			}
			return threadResult(c.th.ID(), text, false), nil
		case protocol.TurnAbortedEvent:
			return threadResult(c.th.ID(), fmt.Sprintf("Turn aborted: %s", msg.Reason), true), nil
		}
	}
}

// forward sends one event to the client as a codex/event notification.
func (c *call) forward(ctx context.Context, ev protocol.Event) error {
	params, err := eventParams(eventMeta{RequestID: c.rawID, ThreadID: c.th.ID()}, ev)
	if err != nil {
		return fmt.Errorf("encode %s event: %w", ev.Msg.EventType(), err)
	}
	if err := c.conn.notify(ctx, methodEvent, params); err != nil {
		return fmt.Errorf("send %s: %w", methodEvent, err)
	}
	return nil
}

// interrupt stops the turn of a call the client cancelled, and drains its events (still
// forwarded: the client may be listening) until the turn reports its end, so that the
// next codex-reply starts on a quiet thread.
func (c *call) interrupt() {
	c.entry.setDraining(true)
	var err error
	if c.textID != "" {
		err = c.th.SubmitWithID(c.textID, protocol.InterruptOp{})
	} else {
		_, err = c.th.Submit(protocol.InterruptOp{})
	}
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(c.s.ctx, interruptGrace)
	defer cancel()
	for {
		ev, err := c.th.NextEvent(ctx)
		if err != nil {
			return
		}
		_ = c.forward(ctx, ev)
		switch ev.Msg.(type) {
		case protocol.TurnAbortedEvent, protocol.TurnCompleteEvent:
			return
		}
	}
}

func (c *call) ref(eventID string) callRef {
	return callRef{threadID: c.th.ID(), toolCallID: c.textID, eventID: eventID}
}

// askExec sends an exec approval to the client and, when it answers, hands the decision to
// the thread. The event loop keeps streaming meanwhile, as Codex does.
func (c *call) askExec(ctx context.Context, eventID string, ev protocol.ExecApprovalRequestEvent) {
	params, err := protocol.Marshal(execParams(c.ref(eventID), ev))
	id := ev.ApprovalID
	if id == "" {
		id = ev.CallID
	}
	c.ask(ctx, params, err, func(d protocol.ReviewDecision) protocol.Op {
		return protocol.ExecApprovalOp{ID: id, TurnID: eventID, Decision: d}
	})
}

func (c *call) askPatch(ctx context.Context, eventID string, ev protocol.ApplyPatchApprovalRequestEvent) {
	params, err := protocol.Marshal(patchParams(c.ref(eventID), ev))
	c.ask(ctx, params, err, func(d protocol.ReviewDecision) protocol.Op {
		return protocol.PatchApprovalOp{ID: ev.CallID, Decision: d}
	})
}

// ask runs one elicitation in a goroutine the call owns. A failed or unreadable answer
// denies: a thread never waits for an answer that cannot come.
func (c *call) ask(ctx context.Context, params json.RawMessage, encErr error, op func(protocol.ReviewDecision) protocol.Op) {
	log := c.s.srv.log
	c.elicitations.Add(1)
	go func() {
		defer c.elicitations.Done()
		d := protocol.ReviewDecision{Kind: protocol.DecisionDenied}
		if encErr != nil {
			log.Error("encode elicitation", "err", encErr)
		} else {
			result, err := c.conn.call(ctx, methodElicit, params)
			if ctx.Err() != nil {
				return // the call is over; its turn no longer waits
			}
			if err != nil {
				log.Warn("elicitation failed; denying", "err", err)
			} else if d, err = decisionOf(result); err != nil {
				log.Warn("unreadable elicitation answer; denying", "err", err)
			}
		}
		if _, err := c.th.Submit(op(d)); err != nil {
			log.Debug("submit approval", "err", err)
		}
	}()
}
