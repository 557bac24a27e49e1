package anthropic

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
)

// wireEvent is the union of the fields of the Messages stream events.
type wireEvent struct {
	Type    string `json:"type"`
	Message *struct {
		ID    string     `json:"id"`
		Usage *wireUsage `json:"usage"`
	} `json:"message"`
	Index        *int `json:"index"`
	ContentBlock *struct {
		Type      string `json:"type"`
		ID        string `json:"id"`
		Name      string `json:"name"`
		Text      string `json:"text"`
		Thinking  string `json:"thinking"`
		Signature string `json:"signature"`
		Data      string `json:"data"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *wireUsage `json:"usage"`
	Error *apiError  `json:"error"`
}

type wireUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
}

// merge takes the non-zero counts of u (message_delta repeats or updates some of them).
func (w *wireUsage) merge(u *wireUsage) {
	if u == nil {
		return
	}
	if u.InputTokens > 0 {
		w.InputTokens = u.InputTokens
	}
	if u.CacheCreationInputTokens > 0 {
		w.CacheCreationInputTokens = u.CacheCreationInputTokens
	}
	if u.CacheReadInputTokens > 0 {
		w.CacheReadInputTokens = u.CacheReadInputTokens
	}
	if u.OutputTokens > 0 {
		w.OutputTokens = u.OutputTokens
	}
}

// tokenUsage maps the Messages counts: the API reports uncached input, cache reads and cache
// writes separately; the engine's input is all three, cache reads are its cached input.
func (w wireUsage) tokenUsage() *protocol.TokenUsage {
	in := w.InputTokens + w.CacheReadInputTokens + w.CacheCreationInputTokens
	return &protocol.TokenUsage{
		InputTokens:           in,
		CachedInputTokens:     w.CacheReadInputTokens,
		CacheWriteInputTokens: w.CacheCreationInputTokens,
		OutputTokens:          w.OutputTokens,
		TotalTokens:           in + w.OutputTokens,
	}
}

// openBlock is a content block between its start and stop events.
type openBlock struct {
	kind   string // text, thinking, redacted_thinking, tool_use
	itemID string
	text   strings.Builder // text, thinking text, or tool input JSON
	sig    string
	data   string
	callID string
	name   string
}

// decoder turns one response's events into ResponseEvents. A fresh decoder serves each
// attempt.
type decoder struct {
	names      toolNames
	msgID      string
	usage      wireUsage
	stopReason string
	blocks     map[int]*openBlock
	provider   string
	classify   func(apiError) *model.Error
}

func newDecoder(names toolNames, provider string, classify func(apiError) *model.Error) *decoder {
	return &decoder{names: names, blocks: map[int]*openBlock{}, provider: provider, classify: classify}
}

// malformed is the error for an event the decoder cannot read. It is a stream failure: the
// request is tried again, and after the retries the turn fails with this text.
func (d *decoder) malformed(typ, why string) *model.Error {
	return &model.Error{Kind: model.KindStream, Message: d.provider + ": malformed " + typ + " event: " + why}
}

// decode reads one SSE event (name and data) and appends the events it yields to out. done
// is true after message_stop.
func (d *decoder) decode(name []byte, data []byte, out []modelstream.ResponseEvent) (_ []modelstream.ResponseEvent, done bool, err error) {
	if fd, ok := parseFastDelta(data); ok {
		return d.applyDelta("content_block_delta", fd.index, fd.typ, fd.value, out)
	}
	var ev wireEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		typ := string(name)
		if typ == "" {
			typ = "stream"
		}
		return out, false, d.malformed(typ, err.Error())
	}
	if ev.Type == "" {
		ev.Type = string(name)
	}
	switch ev.Type {
	case "ping":
	case "message_start":
		if ev.Message == nil {
			return out, false, d.malformed(ev.Type, "no message")
		}
		d.msgID = ev.Message.ID
		d.usage.merge(ev.Message.Usage)
		out = append(out, modelstream.Created{})
	case "content_block_start":
		return d.blockStart(ev, out)
	case "content_block_delta":
		return d.blockDelta(ev, out)
	case "content_block_stop":
		return d.blockStop(ev, out)
	case "message_delta":
		if ev.Delta != nil && ev.Delta.StopReason != "" {
			d.stopReason = ev.Delta.StopReason
		}
		d.usage.merge(ev.Usage)
	case "message_stop":
		if err := d.checkStop(); err != nil {
			return out, false, err
		}
		out = append(out, modelstream.Completed{ResponseID: d.msgID, Usage: d.usage.tokenUsage()})
		return out, true, nil
	case "error":
		if ev.Error == nil {
			return out, false, d.malformed(ev.Type, "no error object")
		}
		return out, false, d.classify(*ev.Error)
	}
	// Unknown event types are skipped: the API documents that new ones may appear.
	return out, false, nil
}

// checkStop maps the stop reasons that end a response without a usable answer.
func (d *decoder) checkStop() error {
	switch d.stopReason {
	case "end_turn", "tool_use", "stop_sequence", "refusal", "pause_turn", "":
		return nil
	case "max_tokens":
		return &model.Error{Kind: model.KindIncomplete, Message: "Incomplete response returned, reason: max_tokens"}
	case "model_context_window_exceeded":
		return &model.Error{Kind: model.KindContextWindowExceeded, Message: d.stopReason}
	}
	return &model.Error{Kind: model.KindIncomplete, Message: d.provider + ": unknown stop_reason " + strconv.Quote(d.stopReason)}
}

func (d *decoder) block(ev wireEvent) (*openBlock, error) {
	if ev.Index == nil {
		return nil, d.malformed(ev.Type, "no index")
	}
	b := d.blocks[*ev.Index]
	if b == nil {
		return nil, d.malformed(ev.Type, fmt.Sprintf("content block %d was not started", *ev.Index))
	}
	return b, nil
}

func (d *decoder) blockStart(ev wireEvent, out []modelstream.ResponseEvent) ([]modelstream.ResponseEvent, bool, error) {
	if ev.Index == nil || ev.ContentBlock == nil {
		return out, false, d.malformed(ev.Type, "no index or content_block")
	}
	if d.blocks[*ev.Index] != nil {
		return out, false, d.malformed(ev.Type, fmt.Sprintf("content block %d started twice", *ev.Index))
	}
	cb := ev.ContentBlock
	b := &openBlock{kind: cb.Type, itemID: d.msgID + "_" + strconv.Itoa(*ev.Index)}
	var added protocol.ResponseItem
	switch cb.Type {
	case "text":
		b.text.WriteString(cb.Text)
		added = protocol.MessageItem{ID: b.itemID, Role: "assistant", Content: []protocol.ContentItem{}}
	case "thinking":
		b.text.WriteString(cb.Thinking)
		b.sig = cb.Signature
		added = protocol.ReasoningItem{ID: b.itemID, Summary: []protocol.ReasoningSummary{}}
	case "redacted_thinking":
		b.data = cb.Data
		added = protocol.ReasoningItem{ID: b.itemID, Summary: []protocol.ReasoningSummary{}}
	case "tool_use":
		if cb.ID == "" || cb.Name == "" {
			return out, false, d.malformed(ev.Type, "tool_use without id or name")
		}
		b.callID, b.name = cb.ID, cb.Name
		if d.names.custom[cb.Name] {
			added = protocol.CustomToolCallItem{ID: b.itemID, Status: "in_progress", CallID: cb.ID, Name: cb.Name}
		} else {
			ns, name := d.splitName(cb.Name)
			added = protocol.FunctionCallItem{ID: b.itemID, Name: name, Namespace: ns, CallID: cb.ID}
		}
	default:
		// Server tools (server_tool_use, web_search_tool_result) are never offered; any
		// other new block kind is kept open so its deltas and stop are accepted and skipped.
	}
	d.blocks[*ev.Index] = b
	if added != nil {
		out = append(out, modelstream.OutputItemAdded{Item: added})
	}
	return out, false, nil
}

func (d *decoder) splitName(flat string) (namespace, name string) {
	if parts, ok := d.names.namespaced[flat]; ok {
		return parts[0], parts[1]
	}
	return "", flat
}

func (d *decoder) blockDelta(ev wireEvent, out []modelstream.ResponseEvent) ([]modelstream.ResponseEvent, bool, error) {
	if ev.Index == nil {
		return out, false, d.malformed(ev.Type, "no index")
	}
	if ev.Delta == nil {
		return out, false, d.malformed(ev.Type, "no delta")
	}
	var value string
	switch ev.Delta.Type {
	case "text_delta":
		value = ev.Delta.Text
	case "thinking_delta":
		value = ev.Delta.Thinking
	case "signature_delta":
		value = ev.Delta.Signature
	case "input_json_delta":
		value = ev.Delta.PartialJSON
	}
	return d.applyDelta(ev.Type, *ev.Index, ev.Delta.Type, value, out)
}

// applyDelta adds one delta to its open block; unknown delta types are skipped.
func (d *decoder) applyDelta(evType string, index int, typ, value string, out []modelstream.ResponseEvent) ([]modelstream.ResponseEvent, bool, error) {
	b := d.blocks[index]
	if b == nil {
		return out, false, d.malformed(evType, fmt.Sprintf("content block %d was not started", index))
	}
	switch typ {
	case "text_delta":
		b.text.WriteString(value)
		out = append(out, modelstream.OutputTextDelta{ItemID: b.itemID, Delta: value})
	case "thinking_delta":
		b.text.WriteString(value)
		out = append(out, modelstream.ReasoningContentDelta{ItemID: b.itemID, Delta: value})
	case "signature_delta":
		b.sig += value
	case "input_json_delta":
		b.text.WriteString(value)
	}
	return out, false, nil
}

func (d *decoder) blockStop(ev wireEvent, out []modelstream.ResponseEvent) ([]modelstream.ResponseEvent, bool, error) {
	b, err := d.block(ev)
	if err != nil {
		return out, false, err
	}
	delete(d.blocks, *ev.Index)
	var item protocol.ResponseItem
	switch b.kind {
	case "text":
		item = protocol.MessageItem{ID: b.itemID, Role: "assistant",
			Content: []protocol.ContentItem{{Type: protocol.ContentOutputText, Text: b.text.String()}}}
	case "thinking":
		enc := thinkingPrefix + b.sig
		var content []protocol.ReasoningContent
		if t := b.text.String(); t != "" {
			content = []protocol.ReasoningContent{{Type: "reasoning_text", Text: t}}
		}
		item = protocol.ReasoningItem{ID: b.itemID, Summary: []protocol.ReasoningSummary{}, Content: content, EncryptedContent: &enc}
	case "redacted_thinking":
		enc := redactedPrefix + b.data
		item = protocol.ReasoningItem{ID: b.itemID, Summary: []protocol.ReasoningSummary{}, EncryptedContent: &enc}
	case "tool_use":
		item = d.toolCall(b)
	default:
		return out, false, nil
	}
	return append(out, modelstream.OutputItemDone{Item: item}), false, nil
}

// toolCall is the finished tool_use block as the engine's call item. Invalid input JSON is
// passed on as is: the tool reports it to the model, as on the Responses wire.
func (d *decoder) toolCall(b *openBlock) protocol.ResponseItem {
	args := strings.TrimSpace(b.text.String())
	if args == "" {
		args = "{}"
	}
	if d.names.custom[b.name] {
		var in struct {
			Input *string `json:"input"`
		}
		input := args
		if json.Unmarshal([]byte(args), &in) == nil && in.Input != nil {
			input = *in.Input
		}
		return protocol.CustomToolCallItem{ID: b.itemID, Status: "completed", CallID: b.callID, Name: b.name, Input: input}
	}
	ns, name := d.splitName(b.name)
	return protocol.FunctionCallItem{ID: b.itemID, Name: name, Namespace: ns, Arguments: args, CallID: b.callID}
}
