package appserver

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/internal/items"
	"github.com/gocodex/gocodex/protocol"
)

// Approvals: the engine asks (exec_approval_request, apply_patch_approval_request), the
// app-server asks the client with a server request, and the answer goes back to the engine
// as ExecApproval / PatchApproval. A v2 client gets item/commandExecution/requestApproval or
// item/fileChange/requestApproval and, once it answered, serverRequest/resolved; a v1 client
// gets execCommandApproval / applyPatchApproval.

// numberedRequest sends a server request and waits for its answer; it returns the request's
// id (for serverRequest/resolved). The id is known as soon as the request is sent, so
// approvals of several threads or parallel tool calls are outstanding together and
// answered in any order.
func (c *Conn) numberedRequest(method string, params any) (int64, json.RawMessage, error) {
	pr, err := c.StartRequest(c.Context(), method, params)
	if err != nil {
		return 0, nil, err
	}
	raw, err := pr.Wait(c.Context())
	return pr.ID(), raw, err
}

// execApprovalParams is item/commandExecution/requestApproval's params, keys in Codex
// 0.169's order (kind and environmentId as it sends them for a local command; no reason key
// when there is none).
type execApprovalParams struct {
	Kind                        string                 `json:"kind"`
	ThreadID                    string                 `json:"threadId"`
	TurnID                      string                 `json:"turnId"`
	ItemID                      string                 `json:"itemId"`
	StartedAtMs                 int64                  `json:"startedAtMs"`
	ApprovalID                  *string                `json:"approvalId,omitempty"`
	EnvironmentID               string                 `json:"environmentId"`
	Reason                      *string                `json:"reason,omitempty"`
	Command                     string                 `json:"command"`
	Cwd                         string                 `json:"cwd"`
	CommandActions              []wire.V2CommandAction `json:"commandActions"`
	ProposedExecpolicyAmendment []string               `json:"proposedExecpolicyAmendment,omitempty"`
	AvailableDecisions          []any                  `json:"availableDecisions"`
}

// execpolicyAmendmentDecision is the one structured entry of availableDecisions.
type execpolicyAmendmentDecision struct {
	AcceptWithExecpolicyAmendment struct {
		ExecpolicyAmendment []string `json:"execpolicy_amendment"`
	} `json:"acceptWithExecpolicyAmendment"`
}

// v1ExecApprovalParams is execCommandApproval's params (ExecCommandApprovalParams).
type v1ExecApprovalParams struct {
	ConversationID string                   `json:"conversationId"`
	CallID         string                   `json:"callId"`
	ApprovalID     string                   `json:"approvalId,omitempty"`
	Command        []string                 `json:"command"`
	Cwd            string                   `json:"cwd"`
	Reason         *string                  `json:"reason"`
	ParsedCmd      []protocol.ParsedCommand `json:"parsedCmd"`
}

// v1PatchApprovalParams is applyPatchApproval's params (ApplyPatchApprovalParams).
type v1PatchApprovalParams struct {
	ConversationID string                         `json:"conversationId"`
	CallID         string                         `json:"callId"`
	FileChanges    map[string]protocol.FileChange `json:"fileChanges"`
	Reason         *string                        `json:"reason"`
	GrantRoot      *string                        `json:"grantRoot"`
}

type patchApprovalParams struct {
	ThreadID    string  `json:"threadId"`
	TurnID      string  `json:"turnId"`
	ItemID      string  `json:"itemId"`
	StartedAtMs int64   `json:"startedAtMs"`
	Reason      *string `json:"reason"`
	GrantRoot   *string `json:"grantRoot"`
}

// v2Decision reads a v2 approval answer: accept, acceptForSession,
// {acceptWithExecpolicyAmendment:{execpolicy_amendment}}, decline, cancel.
func v2Decision(raw json.RawMessage) (protocol.ReviewDecision, error) {
	var r struct {
		Decision json.RawMessage `json:"decision"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return protocol.ReviewDecision{}, err
	}
	var s string
	if json.Unmarshal(r.Decision, &s) == nil {
		switch s {
		case "accept":
			return protocol.ReviewDecision{Kind: protocol.DecisionApproved}, nil
		case "acceptForSession":
			return protocol.ReviewDecision{Kind: protocol.DecisionApprovedForSession}, nil
		case "decline":
			return protocol.ReviewDecision{Kind: protocol.DecisionDenied}, nil
		case "cancel":
			return protocol.ReviewDecision{Kind: protocol.DecisionAbort}, nil
		}
		return protocol.ReviewDecision{}, fmt.Errorf("unknown decision %q", s)
	}
	var o struct {
		Amend *struct {
			Cmd []string `json:"execpolicy_amendment"`
		} `json:"acceptWithExecpolicyAmendment"`
	}
	if err := json.Unmarshal(r.Decision, &o); err != nil || o.Amend == nil {
		return protocol.ReviewDecision{}, fmt.Errorf("unknown decision %s", r.Decision)
	}
	return protocol.ReviewDecision{Kind: protocol.DecisionApprovedExecpolicyAmendment, ExecpolicyAmendment: o.Amend.Cmd}, nil
}

// v1Decision reads a v1 answer: {"decision": ReviewDecision}.
func v1Decision(raw json.RawMessage) (protocol.ReviewDecision, error) {
	var r struct {
		Decision protocol.ReviewDecision `json:"decision"`
	}
	err := json.Unmarshal(raw, &r)
	return r.Decision, err
}

func declined(d protocol.ReviewDecision) bool {
	k := d.EffectiveKind()
	return k == protocol.DecisionDenied || k == protocol.DecisionAbort || k == protocol.DecisionTimedOut
}

// approver picks the connection that answers: the first v2 subscriber, else the first v1
// one (owner or listener).
func approver(subs, listeners []*Conn) (*Conn, bool) {
	if len(subs) > 0 {
		return subs[0], true
	}
	if len(listeners) > 0 {
		return listeners[0], false
	}
	return nil, false
}

func (lt *loadedThread) askExec(subs, listeners []*Conn, subID string, m protocol.ExecApprovalRequestEvent) {
	c, v2 := approver(subs, listeners)
	if c == nil {
		return // nobody to ask: the turn waits until a client subscribes or interrupts
	}
	approvalID := m.CallID
	if m.ApprovalID != "" {
		approvalID = m.ApprovalID
	}
	turnID := m.TurnID
	if turnID == "" {
		turnID = subID
	}
	flushed := lt.flushed(c) // the request follows the notifications queued before it
	c.Go(func() {
		<-flushed
		var dec protocol.ReviewDecision
		var reqID int64
		if v2 && m.McpToolCall != nil {
			id, raw, err := c.numberedRequest("mcpServer/elicitation/request", mcpElicitationFor(lt.id, turnID, m))
			reqID = id
			if err == nil {
				dec, err = mcpElicitationDecision(raw)
			}
			if err != nil {
				if c.Context().Err() != nil {
					return
				}
				dec = protocol.ReviewDecision{Kind: protocol.DecisionDenied}
			}
		} else if v2 {
			cmd := items.JoinCommand(m.Command)
			p := execApprovalParams{Kind: "command", EnvironmentID: "local", ThreadID: lt.id, TurnID: turnID, ItemID: m.CallID, StartedAtMs: time.Now().UnixMilli(),
				Reason: m.Reason, Command: cmd, Cwd: m.Cwd, CommandActions: wire.V2CommandActions(m.ParsedCmd, cmd),
				ProposedExecpolicyAmendment: m.ProposedExecpolicyAmendment}
			if m.ApprovalID != "" {
				p.ApprovalID = &m.ApprovalID
			}
			// What Codex 0.169 offers (on-request escalations, untrusted, prompt rules): accept,
			// the rule amendment when there is one, cancel. acceptForSession and decline are
			// still taken as answers.
			p.AvailableDecisions = []any{"accept"}
			if len(m.ProposedExecpolicyAmendment) > 0 {
				var amend execpolicyAmendmentDecision
				amend.AcceptWithExecpolicyAmendment.ExecpolicyAmendment = m.ProposedExecpolicyAmendment
				p.AvailableDecisions = append(p.AvailableDecisions, amend)
			}
			p.AvailableDecisions = append(p.AvailableDecisions, "cancel")
			id, raw, err := c.numberedRequest("item/commandExecution/requestApproval", p)
			reqID = id
			if err == nil {
				dec, err = v2Decision(raw)
			}
			if err != nil {
				if c.Context().Err() != nil {
					return
				}
				dec = protocol.ReviewDecision{Kind: protocol.DecisionDenied}
			}
		} else {
			p := v1ExecApprovalParams{ConversationID: lt.id, CallID: m.CallID, ApprovalID: m.ApprovalID,
				Command: m.Command, Cwd: m.Cwd, Reason: m.Reason, ParsedCmd: nonNilParsed(m.ParsedCmd)}
			_, raw, err := c.numberedRequest("execCommandApproval", p)
			if err == nil {
				dec, err = v1Decision(raw)
			}
			if err != nil {
				if c.Context().Err() != nil {
					return
				}
				dec = protocol.ReviewDecision{Kind: protocol.DecisionDenied}
			}
		}
		if v2 {
			lt.resolved(c, reqID, m.CallID, declined(dec))
		}
		_ = lt.th.SubmitWithID(newSubmissionID(), protocol.ExecApprovalOp{ID: approvalID, TurnID: turnID, Decision: dec})
	})
}

func (lt *loadedThread) askPatch(subs, listeners []*Conn, subID string, m protocol.ApplyPatchApprovalRequestEvent) {
	c, v2 := approver(subs, listeners)
	if c == nil {
		return
	}
	turnID := m.TurnID
	if turnID == "" {
		turnID = subID
	}
	flushed := lt.flushed(c)
	c.Go(func() {
		<-flushed
		var dec protocol.ReviewDecision
		var reqID int64
		var err error
		var raw json.RawMessage
		if v2 {
			p := patchApprovalParams{ThreadID: lt.id, TurnID: turnID, ItemID: m.CallID, StartedAtMs: time.Now().UnixMilli(),
				Reason: m.Reason, GrantRoot: m.GrantRoot}
			reqID, raw, err = c.numberedRequest("item/fileChange/requestApproval", p)
			if err == nil {
				dec, err = v2Decision(raw)
			}
		} else {
			p := v1PatchApprovalParams{ConversationID: lt.id, CallID: m.CallID, FileChanges: m.Changes,
				Reason: m.Reason, GrantRoot: m.GrantRoot}
			_, raw, err = c.numberedRequest("applyPatchApproval", p)
			if err == nil {
				dec, err = v1Decision(raw)
			}
		}
		if err != nil {
			if c.Context().Err() != nil {
				return
			}
			dec = protocol.ReviewDecision{Kind: protocol.DecisionDenied}
		}
		if v2 {
			// A declined patch ends with patch_apply_end (declined) from the engine.
			lt.resolved(c, reqID, m.CallID, false)
		}
		_ = lt.th.SubmitWithID(newSubmissionID(), protocol.PatchApprovalOp{ID: m.CallID, Decision: dec})
	})
}

func nonNilParsed(p []protocol.ParsedCommand) []protocol.ParsedCommand {
	if p == nil {
		return []protocol.ParsedCommand{}
	}
	return p
}

// resolved tells the client its answer was taken (serverRequest/resolved) and the thread's
// subscribers what follows from it, before the engine hears the answer: so these come
// ahead of whatever the engine does next.
func (lt *loadedThread) resolved(c *Conn, reqID int64, itemID string, declined bool) {
	lt.sendMu.Lock()
	defer lt.sendMu.Unlock()
	lt.notifySub(c, wire.V2Notification{Method: "serverRequest/resolved", Params: struct {
		ThreadID  string `json:"threadId"`
		RequestID int64  `json:"requestId"`
	}{lt.id, reqID}})
	lt.mu.Lock()
	notes := lt.proj.ApprovalResolved(itemID, declined)
	queues := lt.queuesLocked()
	lt.mu.Unlock()
	for _, q := range queues {
		for _, n := range notes {
			q.push(n)
		}
	}
	lt.broadcastStatus(notes)
}
