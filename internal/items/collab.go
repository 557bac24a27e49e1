package items

import (
	"encoding/json"
)

// The sub-agent items of multi_agent_v2. The engine reports them as item_started and
// item_completed events holding Codex's core items (`CollabAgentToolCall`,
// `SubAgentActivity`); the fold makes them bodies every face renders.

// AgentState is one agent's state in a collab call (agentsStates).
type AgentState struct {
	Status  string  `json:"status"`
	Message *string `json:"message"`
}

// CollabCall is a call of a collaboration tool (wait, send_message, …). Status is the core
// item's ("inProgress", "completed", "failed").
type CollabCall struct {
	Tool              string
	Status            string
	SenderThreadID    string
	ReceiverThreadIDs []string
	Prompt            *string
	Model             *string
	ReasoningEffort   *string
	AgentsStates      map[string]AgentState
}

// SubAgentActivity is a sub-agent starting or finishing (Kind "started", "completed").
type SubAgentActivity struct {
	Kind            string
	AgentThreadID   string
	AgentPath       string
	Model           *string
	ReasoningEffort *string
}

func (*CollabCall) isBody()       {}
func (*SubAgentActivity) isBody() {}

// CollabCallCore is the engine's core item of a collab call (its JSON as Codex writes it in
// item_started/item_completed).
type CollabCallCore struct {
	Type              string                `json:"type"`
	ID                string                `json:"id"`
	Tool              string                `json:"tool"`
	Status            string                `json:"status"`
	SenderThreadID    string                `json:"sender_thread_id"`
	ReceiverThreadIDs []string              `json:"receiver_thread_ids"`
	ReceiverAgents    []string              `json:"receiver_agents"`
	Prompt            *string               `json:"prompt,omitempty"`
	Model             *string               `json:"model,omitempty"`
	ReasoningEffort   *string               `json:"reasoning_effort,omitempty"`
	AgentsStates      map[string]AgentState `json:"agents_states"`
}

// SubAgentActivityCore is the engine's core item of a sub-agent's start or end.
type SubAgentActivityCore struct {
	Type            string  `json:"type"`
	ID              string  `json:"id"`
	Kind            string  `json:"kind"`
	AgentThreadID   string  `json:"agent_thread_id"`
	AgentPath       string  `json:"agent_path"`
	Model           *string `json:"model"`
	ReasoningEffort *string `json:"reasoning_effort"`
}

// The core items' types.
const (
	CoreCollabCall       = "CollabAgentToolCall"
	CoreSubAgentActivity = "SubAgentActivity"
)

// collabBody is the body of a collab core item, nil for another item.
func collabBody(raw json.RawMessage, kind string) Body {
	switch kind {
	case CoreCollabCall:
		var c CollabCallCore
		if json.Unmarshal(raw, &c) != nil {
			return nil
		}
		return &CollabCall{Tool: c.Tool, Status: c.Status, SenderThreadID: c.SenderThreadID,
			ReceiverThreadIDs: c.ReceiverThreadIDs, Prompt: c.Prompt, Model: c.Model,
			ReasoningEffort: c.ReasoningEffort, AgentsStates: c.AgentsStates}
	case CoreSubAgentActivity:
		var a SubAgentActivityCore
		if json.Unmarshal(raw, &a) != nil {
			return nil
		}
		return &SubAgentActivity{Kind: a.Kind, AgentThreadID: a.AgentThreadID, AgentPath: a.AgentPath,
			Model: a.Model, ReasoningEffort: a.ReasoningEffort}
	}
	return nil
}

// CollabToolCallItem is exec's item of a collab call (`collab_tool_call`), in Codex's field
// order.
type CollabToolCallItem struct {
	Tool              string                `json:"tool"`
	SenderThreadID    string                `json:"sender_thread_id"`
	ReceiverThreadIDs []string              `json:"receiver_thread_ids"`
	Prompt            *string               `json:"prompt"`
	AgentsStates      map[string]AgentState `json:"agents_states"`
	Status            Status                `json:"status"`
}

func (CollabToolCallItem) ItemType() string { return "collab_tool_call" }
func (CollabToolCallItem) isDetails()       {}

// collabDetails is exec's item of a collab call.
func collabDetails(c *CollabCall) CollabToolCallItem {
	status := StatusCompleted
	switch c.Status {
	case "inProgress", "in_progress":
		status = StatusInProgress
	case "failed":
		status = StatusFailed
	}
	recv := c.ReceiverThreadIDs
	if recv == nil {
		recv = []string{}
	}
	states := c.AgentsStates
	if states == nil {
		states = map[string]AgentState{}
	}
	return CollabToolCallItem{Tool: c.Tool, SenderThreadID: c.SenderThreadID, ReceiverThreadIDs: recv,
		Prompt: c.Prompt, AgentsStates: states, Status: status}
}
