package acp

import (
	"context"

	"github.com/gocodex/gocodex/internal/jsonrpc"
	"github.com/gocodex/gocodex/protocol"
)

// preset is a session mode: one of Codex's approval presets (an approval policy and a
// sandbox together).
type preset struct {
	id, name, description string
	approval              protocol.AskForApproval
	sandbox               protocol.SandboxPolicy
}

var presets = []preset{
	{"read-only", "Read Only", "Codex can read files and answer questions. Codex requires approval to make edits, run commands, or access network",
		protocol.ApprovalOnRequest, protocol.NewReadOnlyPolicy()},
	{"auto", "Default", "Codex can read files, make edits, and run commands in the workspace. Codex requires approval to work outside the workspace or access network",
		protocol.ApprovalOnRequest, protocol.NewWorkspaceWritePolicy()},
	{"full-access", "Full Access", "Codex can read files, make edits, and run commands on your computer, network included, without asking",
		protocol.ApprovalNever, protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}},
}

// modeOf names the preset the policies amount to: the sandbox decides, so a configured
// approval policy (untrusted, say) keeps the mode of its sandbox.
func modeOf(_ protocol.AskForApproval, sandbox protocol.SandboxPolicy) string {
	switch sandbox.EffectiveMode() {
	case protocol.SandboxReadOnly:
		return "read-only"
	case protocol.SandboxWorkspaceWrite:
		return "auto"
	case protocol.SandboxDangerFullAccess:
		return "full-access"
	}
	return ""
}

// setMode switches the session's preset from its next turn on.
func (ss *session) setMode(ctx context.Context, id string) error {
	for _, p := range presets {
		if p.id != id {
			continue
		}
		approval, sandbox := p.approval, p.sandbox
		if _, err := ss.th.Submit(protocol.OverrideTurnContextOp{ApprovalPolicy: &approval, SandboxPolicy: &sandbox}); err != nil {
			return err
		}
		ss.mu.Lock()
		ss.mode = id
		ss.mu.Unlock()
		ss.srv.notify(ctx, ss.id, modeUpdate{SessionUpdate: "current_mode_update", CurrentModeID: id})
		return nil
	}
	return jsonrpc.InvalidParams("unknown modeId " + id + " (read-only, auto or full-access)")
}

// setModel switches the session's model from its next turn on.
func (ss *session) setModel(id string) error {
	if id == "" {
		return jsonrpc.InvalidParams("modelId is empty")
	}
	if _, err := ss.th.Submit(protocol.OverrideTurnContextOp{Model: &id}); err != nil {
		return err
	}
	ss.mu.Lock()
	ss.model = id
	ss.mu.Unlock()
	return nil
}

// effortChoices are the reasoning efforts a session may pick.
var effortChoices = []configChoice{
	{Value: "low", Name: "Low", Description: "Fast responses with lighter reasoning"},
	{Value: "medium", Name: "Medium", Description: "Balances speed and reasoning depth for everyday tasks"},
	{Value: "high", Name: "High", Description: "Greater reasoning depth for complex problems"},
	{Value: "xhigh", Name: "Xhigh", Description: "Extra high reasoning depth for complex problems"},
}

// setEffort switches the session's reasoning effort from its next turn on.
func (ss *session) setEffort(effort string) error {
	known := false
	for _, c := range effortChoices {
		known = known || c.Value == effort
	}
	if !known {
		return jsonrpc.InvalidParams("unknown reasoning_effort " + effort + " (low, medium, high or xhigh)")
	}
	if _, err := ss.th.Submit(protocol.OverrideTurnContextOp{Effort: &effort}); err != nil {
		return err
	}
	ss.mu.Lock()
	ss.effort = effort
	ss.mu.Unlock()
	return nil
}
