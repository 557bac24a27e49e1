package acp

import (
	"context"
	"encoding/json"

	"github.com/gocodex/gocodex/protocol"
)

// Every approval the engine asks for becomes session/request_permission with Codex's
// choices; the chosen option goes back into the engine. The request runs on its own
// goroutine so the session keeps drawing events (a cancel, say) while the person decides.

// permission choices. The ids are the adapter's where it has them.
var (
	allowOnce      = permissionOption{OptionID: "approved", Name: "Yes", Kind: "allow_once"}
	allowSession   = permissionOption{OptionID: "approved-for-session", Name: "Yes, and don't ask again this session", Kind: "allow_always"}
	allowAmendment = permissionOption{OptionID: "approved-execpolicy-amendment", Name: "Yes, and don't ask again for commands like this", Kind: "allow_always"}
	rejectAndAbort = permissionOption{OptionID: "abort", Name: "No, and tell Codex what to do differently", Kind: "reject_once"}
	decisionOf     = map[string]protocol.ReviewDecisionKind{
		allowOnce.OptionID:      protocol.DecisionApproved,
		allowSession.OptionID:   protocol.DecisionApprovedForSession,
		allowAmendment.OptionID: protocol.DecisionApprovedExecpolicyAmendment,
		rejectAndAbort.OptionID: protocol.DecisionAbort,
	}
)

func (ss *session) askExec(ctx context.Context, m protocol.ExecApprovalRequestEvent) {
	options := []permissionOption{allowOnce, allowSession}
	if len(m.ProposedExecpolicyAmendment) > 0 {
		options = []permissionOption{allowOnce, allowAmendment}
	}
	options = append(options, rejectAndAbort)
	call := commandCall(m.CallID, &commandView{argv: m.Command, cwd: m.Cwd, parsed: m.ParsedCmd})
	call.SessionUpdate, call.Status = "", "pending"
	call.Content = reasonContent(m.Reason)
	id := m.ApprovalID
	if id == "" {
		id = m.CallID
	}
	ss.srv.conn.Go(func() {
		d := ss.ask(ctx, call, options)
		if d.Kind == protocol.DecisionApprovedExecpolicyAmendment {
			d.ExecpolicyAmendment = m.ProposedExecpolicyAmendment
		}
		_, _ = ss.th.Submit(protocol.ExecApprovalOp{ID: id, TurnID: m.TurnID, Decision: d})
	})
}

func (ss *session) askPatch(ctx context.Context, m protocol.ApplyPatchApprovalRequestEvent) {
	call := patchCall(m.CallID, m.Changes, func(path string) (string, error) { return ss.readText(ctx, path) })
	call.SessionUpdate, call.Status = "", "pending"
	call.Content = append(reasonContent(m.Reason), call.Content...)
	options := []permissionOption{allowOnce, allowSession, rejectAndAbort}
	ss.srv.conn.Go(func() {
		d := ss.ask(ctx, call, options)
		_, _ = ss.th.Submit(protocol.PatchApprovalOp{ID: m.CallID, Decision: d})
	})
}

// ask puts the request to the client; a cancelled request, or a client that cannot answer,
// aborts the call (nothing runs unapproved).
func (ss *session) ask(ctx context.Context, call toolCall, options []permissionOption) protocol.ReviewDecision {
	raw, err := ss.srv.conn.Call(ctx, "session/request_permission", permissionParams{SessionID: ss.id, ToolCall: call, Options: options})
	abort := protocol.ReviewDecision{Kind: protocol.DecisionAbort}
	if err != nil {
		ss.srv.opts.Logger.Warn("acp: request_permission", "err", err)
		return abort
	}
	var r permissionResult
	if json.Unmarshal(raw, &r) != nil || r.Outcome.Outcome != "selected" {
		return abort
	}
	kind, ok := decisionOf[r.Outcome.OptionID]
	if !ok {
		return abort
	}
	for _, o := range options { // only an option that was offered counts
		if o.OptionID == r.Outcome.OptionID {
			return protocol.ReviewDecision{Kind: kind}
		}
	}
	return abort
}

// reasonContent is the engine's reason for asking, shown with the request.
func reasonContent(reason *string) []toolCallContent {
	if reason == nil || *reason == "" {
		return nil
	}
	t := text(*reason)
	return []toolCallContent{{Type: "content", Content: &t}}
}
