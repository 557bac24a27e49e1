package mcptool

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

type decision int

const (
	allow decision = iota
	denyNever
	denyUser
	abort
)

// sessionApprovals remembers tools the person approved for the session.
type sessionApprovals struct {
	mu   sync.Mutex
	keys map[string]bool
}

func (s *sessionApprovals) has(k string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys[k]
}

func (s *sessionApprovals) add(k string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keys == nil {
		s.keys = map[string]bool{}
	}
	s.keys[k] = true
}

// approve decides whether a call may run, as Codex 0.169 does: a tool that declares itself
// read-only (readOnlyHint) always runs; so does every tool under danger-full-access with
// approval "never". Otherwise "never" refuses (the model is told approval was required),
// and the other policies ask the person.
func (n *Namespace) approve(ctx context.Context, env *tool.Env, call tool.Call, sdkTool *sdk.Tool) (decision, error) {
	if sdkTool.Annotations != nil && sdkTool.Annotations.ReadOnlyHint {
		return allow, nil
	}
	if env == nil {
		return allow, nil
	}
	fullAccess := env.Sandbox.Mode == protocol.SandboxDangerFullAccess
	if env.Approval.Mode == protocol.ApprovalModeNever {
		if fullAccess {
			return allow, nil
		}
		return denyNever, nil
	}
	if fullAccess {
		return allow, nil
	}
	key := n.server + "\x00" + sdkTool.Name
	if n.approved.has(key) {
		return allow, nil
	}
	if env.RequestApproval == nil {
		return denyNever, nil
	}
	// The engine's approval channel carries command approvals; an MCP call is put to the
	// person as the command it amounts to.
	reason := fmt.Sprintf("Allow the %s MCP server to run tool \"%s\"?", n.server, sdkTool.Name)
	var args json.RawMessage
	if a := json.RawMessage(call.Arguments); len(a) > 0 && json.Valid(a) {
		args = a
	}
	d, err := env.RequestApproval(ctx, tool.ApprovalRequest{Exec: &protocol.ExecApprovalRequestEvent{
		CallID:    call.CallID,
		TurnID:    env.TurnID,
		Command:   []string{"mcp", n.server, sdkTool.Name, call.Arguments},
		Cwd:       env.Cwd,
		Reason:    &reason,
		ParsedCmd: []protocol.ParsedCommand{},
		McpToolCall: &protocol.McpToolCallApproval{Server: n.server, Tool: sdkTool.Name, Description: sdkTool.Description,
			Arguments: args},
	}})
	if err != nil {
		return denyUser, err
	}
	switch d.Kind {
	case protocol.DecisionApproved, protocol.DecisionApprovedExecpolicyAmendment, protocol.DecisionApprovedMcpPolicyAmendment:
		return allow, nil
	case protocol.DecisionApprovedForSession:
		n.approved.add(key)
		return allow, nil
	case protocol.DecisionAbort:
		return abort, nil
	}
	return denyUser, nil
}

func encodeBase64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
