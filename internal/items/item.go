package items

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/gocodex/gocodex/protocol"
)

// Item is one thread item. ID is "item_<n>", counted from 0 per thread.
type Item struct {
	ID      string
	Details Details
}

// Details is the kind-specific part of an item: one of the *Item structs below.
type Details interface {
	ItemType() string
	isDetails()
}

// Status of a command, file change or MCP call item.
type Status string

// The item states. Declined is only used for commands the person refused.
const (
	StatusInProgress Status = "in_progress"
	StatusCompleted  Status = "completed"
	StatusFailed     Status = "failed"
	StatusDeclined   Status = "declined"
)

// AgentMessageItem is a complete assistant message.
type AgentMessageItem struct {
	Text string `json:"text"`
}

// ReasoningItem is a reasoning summary.
type ReasoningItem struct {
	Text string `json:"text"`
}

// CommandExecutionItem is a command the agent ran. Command is the argv joined the way a
// shell would read it back; ExitCode is nil while it runs.
type CommandExecutionItem struct {
	Command          string `json:"command"`
	AggregatedOutput string `json:"aggregated_output"`
	ExitCode         *int   `json:"exit_code"`
	Status           Status `json:"status"`
}

// FileUpdateChange is one file of a patch.
type FileUpdateChange struct {
	Path string                  `json:"path"`
	Kind protocol.FileChangeKind `json:"kind"`
}

// FileChangeItem is a patch the agent applied.
type FileChangeItem struct {
	Changes []FileUpdateChange `json:"changes"`
	Status  Status             `json:"status"`
}

// McpToolCallResult is the content of a successful MCP call (content blocks kept raw).
type McpToolCallResult struct {
	Content           []json.RawMessage `json:"content"`
	StructuredContent json.RawMessage   `json:"structured_content"`
}

// McpToolCallError is why an MCP call failed.
type McpToolCallError struct {
	Message string `json:"message"`
}

// McpToolCallItem is a call of an MCP server's tool.
type McpToolCallItem struct {
	Server    string             `json:"server"`
	Tool      string             `json:"tool"`
	Arguments json.RawMessage    `json:"arguments"`
	Result    *McpToolCallResult `json:"result"`
	Error     *McpToolCallError  `json:"error"`
	Status    Status             `json:"status"`
}

// WebSearchItem is a hosted web search. ID is the search's own call id; Codex writes it
// after the item id, so the JSON object has "id" twice.
type WebSearchItem struct {
	ID     string          `json:"id"`
	Query  string          `json:"query"`
	Action json.RawMessage `json:"action"`
}

// TodoItem is one step of the agent's plan.
type TodoItem struct {
	Text      string `json:"text"`
	Completed bool   `json:"completed"`
}

// TodoListItem is the agent's plan, from update_plan.
type TodoListItem struct {
	Items []TodoItem `json:"items"`
}

// ErrorItem is a non-fatal error or warning shown in the thread.
type ErrorItem struct {
	Message string `json:"message"`
}

func (AgentMessageItem) ItemType() string     { return "agent_message" }
func (ReasoningItem) ItemType() string        { return "reasoning" }
func (CommandExecutionItem) ItemType() string { return "command_execution" }
func (FileChangeItem) ItemType() string       { return "file_change" }
func (McpToolCallItem) ItemType() string      { return "mcp_tool_call" }
func (WebSearchItem) ItemType() string        { return "web_search" }
func (TodoListItem) ItemType() string         { return "todo_list" }
func (ErrorItem) ItemType() string            { return "error" }

func (AgentMessageItem) isDetails()     {}
func (ReasoningItem) isDetails()        {}
func (CommandExecutionItem) isDetails() {}
func (FileChangeItem) isDetails()       {}
func (McpToolCallItem) isDetails()      {}
func (WebSearchItem) isDetails()        {}
func (TodoListItem) isDetails()         {}
func (ErrorItem) isDetails()            {}

// MarshalJSON writes {"id":…,"type":…,<fields>} without HTML escaping.
func (it Item) MarshalJSON() ([]byte, error) {
	if it.Details == nil {
		return nil, fmt.Errorf("item %s has no details", it.ID)
	}
	body, err := protocol.Marshal(it.Details)
	if err != nil {
		return nil, err
	}
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("item %s: details did not encode as an object", it.ID)
	}
	var buf bytes.Buffer
	buf.Grow(len(body) + len(it.ID) + 32)
	buf.WriteString(`{"id":`)
	id, _ := protocol.Marshal(it.ID)
	buf.Write(id)
	buf.WriteString(`,"type":"`)
	buf.WriteString(it.Details.ItemType())
	buf.WriteByte('"')
	if len(body) > 2 {
		buf.WriteByte(',')
		buf.Write(body[1:])
	} else {
		buf.WriteByte('}')
	}
	return buf.Bytes(), nil
}
