package chat

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
)

// request is the Chat Completions body, fields in the order they are written.
type request struct {
	Model             string            `json:"model"`
	Messages          []message         `json:"messages"`
	Stream            bool              `json:"stream"`
	StreamOptions     streamOptions     `json:"stream_options"`
	Tools             []json.RawMessage `json:"tools,omitempty"`
	ToolChoice        string            `json:"tool_choice,omitempty"`
	ParallelToolCalls *bool             `json:"parallel_tool_calls,omitempty"`
	ReasoningEffort   string            `json:"reasoning_effort,omitempty"`
	Verbosity         string            `json:"verbosity,omitempty"`
	ResponseFormat    *responseFormat   `json:"response_format,omitempty"`
	ServiceTier       string            `json:"service_tier,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type responseFormat struct {
	Type       string     `json:"type"`
	JSONSchema jsonSchema `json:"json_schema"`
}

type jsonSchema struct {
	Name   string          `json:"name"`
	Strict bool            `json:"strict"`
	Schema json.RawMessage `json:"schema"`
}

// message is one chat message. Content is a string, an array of parts, or null (an assistant
// turn that only calls tools).
type message struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
	// ReasoningContent gives back the reasoning of a turn that called tools, which servers
	// with thinking modes (DeepSeek, Kimi) require on every later request.
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	ToolCalls        []toolCall `json:"tool_calls,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function functionCall `json:"function"`
}

type functionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type part struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL    string `json:"url"`
	Detail string `json:"detail,omitempty"`
}

// buildRequest writes the body for p with the already translated tools.
func buildRequest(p modelstream.Prompt, ts *toolSet) ([]byte, error) {
	r := request{
		Model:         p.Model,
		Messages:      historyMessages(p),
		Stream:        true,
		StreamOptions: streamOptions{IncludeUsage: true},
		Verbosity:     p.Verbosity,
	}
	if len(ts.specs) > 0 {
		r.Tools = ts.specs
		r.ToolChoice = "auto"
		parallel := p.ParallelToolCalls
		r.ParallelToolCalls = &parallel
	}
	if p.Reasoning != nil {
		r.ReasoningEffort = p.Reasoning.Effort
	}
	if len(p.OutputSchema) > 0 {
		r.ResponseFormat = &responseFormat{Type: "json_schema",
			JSONSchema: jsonSchema{Name: "codex_output_schema", Strict: true, Schema: p.OutputSchema}}
	}
	if p.ServiceTier == "fast" {
		r.ServiceTier = "priority"
	} else {
		r.ServiceTier = p.ServiceTier
	}
	b, err := marshalNoEscape(r)
	if err != nil {
		return nil, fmt.Errorf("encode chat request: %w", err)
	}
	return b, nil
}

// historyMessages maps the instructions and the thread's items to chat messages. Tool calls
// of one assistant turn join the assistant message before them; each result becomes a `tool`
// message with the call's id. Raw reasoning goes back as `reasoning_content` on an assistant
// message that called tools (and nowhere else: servers ignore or refuse it there). Items with
// no chat form (reasoning summaries, web searches, compaction blobs only the Responses API
// reads) are left out.
func historyMessages(p modelstream.Prompt) []message {
	msgs := make([]message, 0, len(p.Input)+1)
	if p.Instructions != "" {
		msgs = append(msgs, message{Role: "system", Content: p.Instructions})
	}
	// Images returned by tools wait for the end of the run of tool messages: the API wants
	// every result right after the assistant message that called it.
	var heldImages []part
	flushImages := func() {
		if len(heldImages) > 0 {
			msgs = append(msgs, message{Role: "user", Content: heldImages})
			heldImages = nil
		}
	}
	// reasoning is the raw reasoning of the response being read, for its assistant message.
	var reasoning strings.Builder
	call := func(id, name, args string) {
		tc := toolCall{ID: id, Type: "function", Function: functionCall{Name: name, Arguments: args}}
		if n := len(msgs); n > 0 && msgs[n-1].Role == "assistant" && reasoning.Len() == 0 {
			msgs[n-1].ToolCalls = append(msgs[n-1].ToolCalls, tc)
			return
		}
		flushImages()
		msgs = append(msgs, message{Role: "assistant", Content: nil, ReasoningContent: reasoning.String(), ToolCalls: []toolCall{tc}})
		reasoning.Reset()
	}
	result := func(id string, out protocol.FunctionCallOutputPayload) {
		text, images := splitOutput(out)
		msgs = append(msgs, message{Role: "tool", ToolCallID: id, Content: text})
		heldImages = append(heldImages, images...)
	}
	for _, item := range p.Input {
		switch it := item.(type) {
		case protocol.MessageItem:
			flushImages()
			if m, ok := chatMessage(it); ok {
				if m.Role == "assistant" {
					m.ReasoningContent = reasoning.String()
				}
				msgs = append(msgs, m)
			}
			reasoning.Reset()
		case protocol.ReasoningItem:
			for _, c := range it.Content {
				reasoning.WriteString(c.Text)
			}
		case protocol.FunctionCallItem:
			name := it.Name
			if it.Namespace != "" {
				name = flatName(it.Namespace, it.Name)
			}
			call(it.CallID, name, it.Arguments)
		case protocol.CustomToolCallItem:
			args, _ := marshalNoEscape(struct {
				Input string `json:"input"`
			}{it.Input})
			call(it.CallID, it.Name, string(args))
		case protocol.LocalShellCallItem:
			id := it.ID
			if it.CallID != nil {
				id = *it.CallID
			}
			args, _ := marshalNoEscape(it.Action)
			call(id, "local_shell", string(args))
		case protocol.FunctionCallOutputItem:
			reasoning.Reset()
			result(it.CallID, it.Output)
		case protocol.CustomToolCallOutputItem:
			reasoning.Reset()
			result(it.CallID, it.Output)
		}
	}
	flushImages()
	for i := range msgs {
		if len(msgs[i].ToolCalls) == 0 {
			msgs[i].ReasoningContent = ""
		}
	}
	return msgs
}

// chatMessage maps a Responses message; developer messages become system messages, which
// every chat server accepts.
func chatMessage(m protocol.MessageItem) (message, bool) {
	role := m.Role
	if role == "developer" {
		role = "system"
	}
	var parts []part
	images := false
	for _, c := range m.Content {
		switch c.Type {
		case protocol.ContentInputText, protocol.ContentOutputText:
			parts = append(parts, part{Type: "text", Text: c.Text})
		case protocol.ContentInputImage:
			images = true
			parts = append(parts, part{Type: "image_url", ImageURL: &imageURL{URL: c.ImageURL, Detail: imageDetail(c.Detail)}})
		}
	}
	if len(parts) == 0 {
		return message{}, false
	}
	// Assistant turns are plain text on every server; a single text part is sent as a string,
	// the form servers without multi-part support read.
	if role == "assistant" || (!images && len(parts) == 1) {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return message{Role: role, Content: b.String()}, true
	}
	return message{Role: role, Content: parts}, true
}

// imageDetail keeps the details the Chat Completions API knows.
func imageDetail(d string) string {
	switch d {
	case "auto", "low", "high":
		return d
	}
	return ""
}

// splitOutput turns a tool result into the text of the tool message and the images that
// follow it in a user message (tool messages carry text only).
func splitOutput(out protocol.FunctionCallOutputPayload) (string, []part) {
	if out.ContentItems == nil {
		return out.Content, nil
	}
	var texts []string
	var images []part
	for _, c := range out.ContentItems {
		switch c.Type {
		case protocol.ContentInputText, protocol.ContentOutputText:
			texts = append(texts, c.Text)
		case protocol.ContentInputImage:
			images = append(images, part{Type: "image_url", ImageURL: &imageURL{URL: c.ImageURL, Detail: imageDetail(c.Detail)}})
		}
	}
	text := strings.Join(texts, "\n")
	if text == "" && len(images) > 0 {
		text = "(the image is attached in the next message)"
	}
	return text, images
}
