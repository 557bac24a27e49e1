package agents

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/protocol"
)

// The texts Codex 0.169 gives the agents of a tree (recorded from its requests).
var (
	//go:embed texts/root_instructions.md
	rootInstructions string
	//go:embed texts/child_instructions.md
	childInstructions string
	//go:embed texts/spawned_child.md
	spawnedChild string
	//go:embed texts/multi_agent_mode.md
	multiAgentMode string
)

// slotsSentence is the instructions' sentence on concurrency, written for Codex's default.
const slotsSentence = "There are 4 available concurrency slots"

func withSlots(text string, maxThreads int) string {
	return strings.Replace(text, slotsSentence, fmt.Sprintf("There are %d available concurrency slots", maxThreads), 1)
}

// RootInstructions are the developer messages of a root agent's context.
func (r *Registry) RootInstructions() []protocol.ResponseItem {
	return []protocol.ResponseItem{developer(withSlots(rootInstructions, r.opts.MaxThreads)), developer(multiAgentMode)}
}

func developer(text string) protocol.ResponseItem {
	return protocol.MessageItem{Role: "developer", Content: []protocol.ContentItem{{Type: "input_text", Text: text}}}
}

func userMessage(text string) protocol.ResponseItem {
	return protocol.MessageItem{Role: "user", Content: []protocol.ContentItem{{Type: "input_text", Text: text}}}
}

// openingItems open a child's first turn: it is told it was spawned, how the team works,
// and its task, as Codex sends them.
func openingItems(parentPath, path, task string, maxThreads int) []protocol.ResponseItem {
	return []protocol.ResponseItem{
		developer(spawnedChild),
		developer(withSlots(childInstructions, maxThreads)),
		developer(multiAgentMode),
		agentMessage(parentPath, path, "NEW_TASK", task, true),
	}
}

// agentMessage is an agent_message item from author to recipient. Codex sends a task's
// payload as an encrypted_content part (the provider encrypts it; we pass it as given) and
// an answer's in the text.
func agentMessage(author, recipient, kind, payload string, encrypted bool) protocol.ResponseItem {
	taskName := recipient
	head := fmt.Sprintf("Message Type: %s\nTask name: %s\nSender: %s\nPayload:\n", kind, taskName, author)
	content := []map[string]string{{"type": "input_text", "text": head + payload}}
	if encrypted {
		content = []map[string]string{{"type": "input_text", "text": head}, {"type": "encrypted_content", "encrypted_content": payload}}
	}
	raw, _ := json.Marshal(struct {
		Type      string              `json:"type"`
		ID        string              `json:"id"`
		Author    string              `json:"author"`
		Recipient string              `json:"recipient"`
		Content   []map[string]string `json:"content"`
	}{"agent_message", "amsg_" + newID(), author, recipient, content})
	return protocol.OtherItem{Raw: raw}
}

func newID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}

// sortedNodes are the nodes by path, for stable listings.
func sortedNodes(m map[string]*node) []*node {
	out := make([]*node, 0, len(m))
	for _, n := range m {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}
