package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
)

// requestBody is a Messages request, fields in the order the API documents them.
type requestBody struct {
	Model      string          `json:"model"`
	MaxTokens  int             `json:"max_tokens"`
	System     []block         `json:"system,omitempty"`
	Messages   []message       `json:"messages"`
	Tools      []toolWire      `json:"tools,omitempty"`
	ToolChoice *toolChoice     `json:"tool_choice,omitempty"`
	Thinking   *thinkingConfig `json:"thinking,omitempty"`
	Stream     bool            `json:"stream"`
}

type message struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

// block is every content block the client sends (text, image, tool_use, tool_result,
// thinking, redacted_thinking); the unused fields are omitted.
type block struct {
	Type         string          `json:"type"`
	Text         string          `json:"text,omitempty"`
	Source       *imageSource    `json:"source,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      any             `json:"content,omitempty"`
	IsError      bool            `json:"is_error,omitempty"`
	Thinking     *string         `json:"thinking,omitempty"`
	Signature    string          `json:"signature,omitempty"`
	Data         string          `json:"data,omitempty"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

type cacheControl struct {
	Type string `json:"type"`
}

// ephemeral marks a prompt-cache breakpoint: everything up to and including the block is
// cached (the API allows four; the client sets three).
var ephemeral = &cacheControl{Type: "ephemeral"}

type toolWire struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type toolChoice struct {
	Type                   string `json:"type"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use,omitempty"`
}

type thinkingConfig struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

// toolNames remembers how the request named its tools, to read the model's calls back.
type toolNames struct {
	// custom holds the freeform tools offered as a one-string-property tool.
	custom map[string]bool
	// namespaced maps a flattened "<namespace>__<tool>" name to its two parts.
	namespaced map[string][2]string
}

// buildRequest maps a prompt onto a Messages request body and remembers the tool names it
// used. What the wire cannot carry is logged once per client (warnOnce).
func (c *Client) buildRequest(p modelstream.Prompt) ([]byte, toolNames, error) {
	names := toolNames{custom: map[string]bool{}, namespaced: map[string][2]string{}}
	limits := limitsFor(p.Model)
	body := requestBody{Model: p.Model, MaxTokens: limits.maxTokens, Stream: true}
	if c.maxTokens > 0 {
		body.MaxTokens = c.maxTokens
	}
	system, history := systemPrefix(p.Instructions, p.Input)
	if len(system) > 0 {
		system[len(system)-1].CacheControl = ephemeral
		body.System = system
	}
	tools, err := c.mapTools(p.Tools, &names)
	if err != nil {
		return nil, names, err
	}
	if len(tools) > 0 {
		tools[len(tools)-1].CacheControl = ephemeral
		body.Tools = tools
		if !p.ParallelToolCalls {
			body.ToolChoice = &toolChoice{Type: "auto", DisableParallelToolUse: true}
		}
	}
	msgs, err := c.mapHistory(history)
	if err != nil {
		return nil, names, err
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			last := &msgs[i].Content[len(msgs[i].Content)-1]
			last.CacheControl = ephemeral
			break
		}
	}
	body.Messages = msgs
	if p.Reasoning != nil && p.Reasoning.Effort != "" && p.Reasoning.Effort != "none" {
		if !limits.thinking {
			c.warnOnce("thinking:"+p.Model, "model does not support extended thinking on the anthropic wire; reasoning effort ignored",
				"model", p.Model, "effort", p.Reasoning.Effort)
		} else if budget := thinkingBudget(p.Reasoning.Effort, body.MaxTokens); budget > 0 {
			if toolLoopWithoutThinking(msgs) {
				// The API rejects thinking when the assistant turn being continued (its tool
				// results are the last message) has no thinking block, as happens after a
				// switch of model or provider mid-turn. Thinking resumes with the next turn.
				c.log.Debug("anthropic: thinking off for this request: the tool loop began without thinking", "model", p.Model)
			} else {
				body.Thinking = &thinkingConfig{Type: "enabled", BudgetTokens: budget}
			}
		}
	}
	if len(p.OutputSchema) > 0 {
		c.warnOnce("output_schema", "the anthropic wire cannot constrain the answer to an output schema; the schema is ignored")
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		return nil, names, fmt.Errorf("anthropic: encode request: %w", err)
	}
	return bytes.TrimRight(b.Bytes(), "\n"), names, nil
}

// systemPrefix is the request's top-level system text: the instructions field, then the
// developer (or system) messages the input starts with — the base instructions, which the
// engine sends as Codex 0.169 does as a first developer message, and the thread's permissions
// and developer instructions. The Messages API has no developer role: in messages they would
// read as the user's words. This prefix is the same for every request of a thread, so the
// cache breakpoint goes on its last block. A developer message later in the history (a
// change of settings mid-thread) stays where it is, as user text, in its place in time.
// The rest of the input is returned.
func systemPrefix(instructions string, input []protocol.ResponseItem) ([]block, []protocol.ResponseItem) {
	var system []block
	if instructions != "" {
		system = append(system, block{Type: "text", Text: instructions})
	}
	for len(input) > 0 {
		m, ok := input[0].(protocol.MessageItem)
		if !ok || (m.Role != "developer" && m.Role != "system") || !textOnly(m.Content) {
			break
		}
		for _, ci := range m.Content {
			if ci.Text != "" {
				system = append(system, block{Type: "text", Text: ci.Text})
			}
		}
		input = input[1:]
	}
	return system, input
}

// textOnly reports whether message content is all text (the system field takes only text).
func textOnly(content []protocol.ContentItem) bool {
	for _, ci := range content {
		if ci.Type == protocol.ContentInputImage {
			return false
		}
	}
	return true
}

// toolLoopWithoutThinking reports whether the request continues an assistant turn (the last
// message holds tool results) whose assistant message does not start with thinking.
func toolLoopWithoutThinking(msgs []message) bool {
	n := len(msgs)
	if n < 2 || msgs[n-1].Role != "user" || msgs[n-1].Content[0].Type != "tool_result" {
		return false
	}
	first := msgs[n-2].Content[0].Type
	return first != "thinking" && first != "redacted_thinking"
}

// toolSpec is the part of a Responses tool spec the mapping reads.
type toolSpec struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Format      *struct {
		Syntax     string `json:"syntax"`
		Definition string `json:"definition"`
	} `json:"format"`
	Tools []toolSpec `json:"tools"`
}

var emptyObjectSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// mapTools turns Responses tool specs into Messages tools: functions as they are, freeform
// tools as a tool taking one string `input`, namespaces flattened to "<ns>__<tool>". Built-in
// tools the Messages API has no counterpart for are dropped (and logged once).
func (c *Client) mapTools(specs []json.RawMessage, names *toolNames) ([]toolWire, error) {
	var out []toolWire
	for _, raw := range specs {
		var s toolSpec
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("anthropic: read tool spec: %w", err)
		}
		switch s.Type {
		case "function":
			out = append(out, functionTool(s.Name, s))
		case "custom":
			names.custom[s.Name] = true
			out = append(out, freeformTool(s))
		case "namespace":
			for _, t := range s.Tools {
				flat := s.Name + "__" + t.Name
				names.namespaced[flat] = [2]string{s.Name, t.Name}
				out = append(out, functionTool(flat, t))
			}
		default:
			c.warnOnce("tool:"+s.Type, "the anthropic wire cannot offer this built-in tool; it is left out", "tool", s.Type)
		}
	}
	return out, nil
}

func functionTool(name string, s toolSpec) toolWire {
	schema := s.Parameters
	if len(bytes.TrimSpace(schema)) == 0 || string(schema) == "null" {
		schema = emptyObjectSchema
	}
	return toolWire{Name: name, Description: s.Description, InputSchema: schema}
}

// freeformInputSchema is the schema of a freeform tool on this wire: the text the model
// would have written goes in `input`.
var freeformInputSchema = json.RawMessage(`{"type":"object","properties":{"input":{"type":"string","description":"The whole input text of the tool, written exactly as its format requires."}},"required":["input"],"additionalProperties":false}`)

func freeformTool(s toolSpec) toolWire {
	desc := s.Description
	desc += "\n\nPass the whole input text as the string property `input`."
	if s.Format != nil && s.Format.Definition != "" {
		desc += " It must follow this " + s.Format.Syntax + " grammar:\n" + s.Format.Definition
	}
	return toolWire{Name: s.Name, Description: desc, InputSchema: freeformInputSchema}
}

// Prefixes of ReasoningItem.EncryptedContent marking what this wire stored there, so a
// reasoning item from another provider (whose encrypted blob the API cannot verify) is not
// sent back as a thinking block.
const (
	thinkingPrefix = "anthropic.thinking:"
	redactedPrefix = "anthropic.redacted:"
)

// historyBuilder accumulates alternating messages, merging consecutive same-role items.
type historyBuilder struct {
	msgs     []message
	toolUses map[string]bool
}

func (h *historyBuilder) add(role string, blocks ...block) {
	if len(blocks) == 0 {
		return
	}
	if n := len(h.msgs); n > 0 && h.msgs[n-1].Role == role {
		h.msgs[n-1].Content = append(h.msgs[n-1].Content, blocks...)
		return
	}
	h.msgs = append(h.msgs, message{Role: role, Content: blocks})
}

func (h *historyBuilder) toolUse(id, name string, input json.RawMessage) {
	h.toolUses[id] = true
	h.add("assistant", block{Type: "tool_use", ID: id, Name: name, Input: input})
}

// mapHistory turns the conversation into Messages messages.
func (c *Client) mapHistory(items []protocol.ResponseItem) ([]message, error) {
	h := &historyBuilder{toolUses: map[string]bool{}}
	for _, it := range items {
		switch it := it.(type) {
		case protocol.MessageItem:
			blocks, err := contentBlocks(it.Content)
			if err != nil {
				return nil, err
			}
			role := "user" // developer and system messages have no role of their own here
			if it.Role == "assistant" {
				role = "assistant"
			}
			h.add(role, blocks...)
		case protocol.ReasoningItem:
			if b, ok := thinkingBlock(it); ok {
				h.add("assistant", b)
			}
		case protocol.FunctionCallItem:
			name := it.Name
			if it.Namespace != "" {
				name = it.Namespace + "__" + it.Name
			}
			h.toolUse(it.CallID, name, argumentsObject(it.Arguments))
		case protocol.CustomToolCallItem:
			input, _ := json.Marshal(map[string]string{"input": it.Input})
			h.toolUse(it.CallID, it.Name, input)
		case protocol.LocalShellCallItem:
			// Only in a history begun on another provider; kept so its output has a call.
			if it.CallID != nil {
				action, _ := json.Marshal(it.Action)
				h.toolUse(*it.CallID, "local_shell", action)
			}
		case protocol.FunctionCallOutputItem:
			if err := h.toolResult(it.CallID, it.Output); err != nil {
				return nil, err
			}
		case protocol.CustomToolCallOutputItem:
			if err := h.toolResult(it.CallID, it.Output); err != nil {
				return nil, err
			}
		default:
			// web_search_call, compaction and unknown items carry nothing this API reads.
			c.log.Debug("anthropic: history item not sent", "type", it.ItemType())
		}
	}
	return repairToolResults(h.msgs), nil
}

func (h *historyBuilder) toolResult(callID string, out protocol.FunctionCallOutputPayload) error {
	var content any
	if len(out.ContentItems) > 0 {
		blocks, err := contentBlocks(out.ContentItems)
		if err != nil {
			return err
		}
		if len(blocks) > 0 {
			content = blocks
		}
	} else if out.Content != "" {
		content = out.Content
	}
	if !h.toolUses[callID] {
		// An output whose call is not in the history (trimmed away): the API would reject
		// a dangling tool_result, so the model reads it as text.
		text := "Output of tool call " + callID + ":\n" + out.Content
		h.add("user", block{Type: "text", Text: text})
		return nil
	}
	b := block{Type: "tool_result", ToolUseID: callID, Content: content}
	if out.Success != nil && !*out.Success {
		b.IsError = true
	}
	h.add("user", b)
	return nil
}

// repairToolResults puts tool_result blocks first in each user message (the API requires it)
// and answers every tool_use left without a result in the next message with an "aborted"
// error result (an interrupted turn), so the request stays valid.
func repairToolResults(msgs []message) []message {
	for i := range msgs {
		if msgs[i].Role != "user" {
			continue
		}
		var results, rest []block
		for _, b := range msgs[i].Content {
			if b.Type == "tool_result" {
				results = append(results, b)
			} else {
				rest = append(rest, b)
			}
		}
		msgs[i].Content = append(results, rest...)
	}
	for i := 0; i < len(msgs); i++ {
		if msgs[i].Role != "assistant" {
			continue
		}
		answered := map[string]bool{}
		if i+1 < len(msgs) {
			for _, b := range msgs[i+1].Content {
				if b.Type == "tool_result" {
					answered[b.ToolUseID] = true
				}
			}
		}
		var missing []block
		for _, b := range msgs[i].Content {
			if b.Type == "tool_use" && !answered[b.ID] {
				missing = append(missing, block{Type: "tool_result", ToolUseID: b.ID, Content: "aborted", IsError: true})
			}
		}
		if len(missing) == 0 {
			continue
		}
		if i+1 < len(msgs) {
			msgs[i+1].Content = append(missing, msgs[i+1].Content...)
		} else {
			msgs = append(msgs, message{Role: "user", Content: missing})
		}
	}
	return msgs
}

// argumentsObject is a call's arguments as the object tool_use.input must be: the parsed
// JSON object, {} for none, or {"arguments": text} when the model wrote something else.
func argumentsObject(args string) json.RawMessage {
	trimmed := strings.TrimSpace(args)
	if trimmed == "" {
		return json.RawMessage(`{}`)
	}
	if strings.HasPrefix(trimmed, "{") && json.Valid([]byte(trimmed)) {
		return json.RawMessage(trimmed)
	}
	wrapped, _ := json.Marshal(map[string]string{"arguments": args})
	return wrapped
}

// thinkingBlock rebuilds the thinking (or redacted_thinking) block this wire stored in a
// reasoning item; ok is false for reasoning from another provider.
func thinkingBlock(it protocol.ReasoningItem) (block, bool) {
	if it.EncryptedContent == nil {
		return block{}, false
	}
	enc := *it.EncryptedContent
	switch {
	case strings.HasPrefix(enc, thinkingPrefix):
		var text strings.Builder
		for _, c := range it.Content {
			text.WriteString(c.Text)
		}
		t := text.String()
		return block{Type: "thinking", Thinking: &t, Signature: strings.TrimPrefix(enc, thinkingPrefix)}, true
	case strings.HasPrefix(enc, redactedPrefix):
		return block{Type: "redacted_thinking", Data: strings.TrimPrefix(enc, redactedPrefix)}, true
	}
	return block{}, false
}

// contentBlocks maps message content to text and image blocks (empty texts are dropped: the
// API rejects them).
func contentBlocks(items []protocol.ContentItem) ([]block, error) {
	var out []block
	for _, ci := range items {
		switch ci.Type {
		case protocol.ContentInputImage:
			src, err := imageFromURL(ci.ImageURL)
			if err != nil {
				return nil, err
			}
			out = append(out, block{Type: "image", Source: src})
		default:
			if ci.Text != "" {
				out = append(out, block{Type: "text", Text: ci.Text})
			}
		}
	}
	return out, nil
}

// imageFromURL maps a base64 data URL or an http(s) URL to an image source.
func imageFromURL(u string) (*imageSource, error) {
	if rest, ok := strings.CutPrefix(u, "data:"); ok {
		meta, data, ok := strings.Cut(rest, ",")
		mediaType, isBase64 := strings.CutSuffix(meta, ";base64")
		if !ok || !isBase64 || mediaType == "" {
			return nil, fmt.Errorf("anthropic: image data URL must be base64 with a media type (got %q)", truncate(u, 40))
		}
		return &imageSource{Type: "base64", MediaType: mediaType, Data: data}, nil
	}
	if strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://") {
		return &imageSource{Type: "url", URL: u}, nil
	}
	return nil, fmt.Errorf("anthropic: image URL %q is neither a base64 data URL nor http(s)", truncate(u, 40))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
