package wire

import (
	"github.com/gocodex/gocodex/internal/items"
)

// The sub-agent items of multi_agent_v2 (Codex 0.169's ThreadItem variants).

// V2CollabAgentState is one agent's last known state in a collab call.
type V2CollabAgentState struct {
	Status  string  `json:"status"`
	Message *string `json:"message"`
}

// V2CollabAgentToolCall is a call of a collaboration tool (wait_agent, …).
type V2CollabAgentToolCall struct {
	Type              string                        `json:"type"`
	ID                string                        `json:"id"`
	Tool              string                        `json:"tool"`
	Status            string                        `json:"status"`
	SenderThreadID    string                        `json:"senderThreadId"`
	ReceiverThreadIDs []string                      `json:"receiverThreadIds"`
	Prompt            *string                       `json:"prompt"`
	Model             *string                       `json:"model"`
	ReasoningEffort   *string                       `json:"reasoningEffort"`
	AgentsStates      map[string]V2CollabAgentState `json:"agentsStates"`
	times
}

// V2SubAgentActivity is a sub-agent starting or finishing.
type V2SubAgentActivity struct {
	Type            string  `json:"type"`
	Model           *string `json:"model"`
	ReasoningEffort *string `json:"reasoningEffort"`
	ID              string  `json:"id"`
	Kind            string  `json:"kind"`
	AgentThreadID   string  `json:"agentThreadId"`
	AgentPath       string  `json:"agentPath"`
	times
}

func (i *V2CollabAgentToolCall) clone() V2Item  { c := *i; return &c }
func (i *V2CollabAgentToolCall) ItemID() string { return i.ID }
func (i *V2SubAgentActivity) clone() V2Item     { c := *i; return &c }
func (i *V2SubAgentActivity) ItemID() string    { return i.ID }

// v2CollabCall is the v2 item of a collab call in its current state.
func v2CollabCall(id string, b *items.CollabCall) *V2CollabAgentToolCall {
	status := b.Status
	if status == "in_progress" {
		status = "inProgress"
	}
	recv := b.ReceiverThreadIDs
	if recv == nil {
		recv = []string{}
	}
	states := map[string]V2CollabAgentState{}
	for k, s := range b.AgentsStates {
		states[k] = V2CollabAgentState(s)
	}
	return &V2CollabAgentToolCall{Type: "collabAgentToolCall", ID: id, Tool: b.Tool, Status: status,
		SenderThreadID: b.SenderThreadID, ReceiverThreadIDs: recv, Prompt: b.Prompt, Model: b.Model,
		ReasoningEffort: b.ReasoningEffort, AgentsStates: states}
}

func v2SubAgentActivity(id string, b *items.SubAgentActivity) *V2SubAgentActivity {
	return &V2SubAgentActivity{Type: "subAgentActivity", Model: b.Model, ReasoningEffort: b.ReasoningEffort,
		ID: id, Kind: b.Kind, AgentThreadID: b.AgentThreadID, AgentPath: b.AgentPath}
}
