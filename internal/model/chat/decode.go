package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
)

// chunk is one `chat.completion.chunk`, or the error object some servers send mid-stream.
type chunk struct {
	ID      string          `json:"id"`
	Choices []choice        `json:"choices"`
	Usage   *usage          `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type choice struct {
	Index        int    `json:"index"`
	Delta        delta  `json:"delta"`
	FinishReason string `json:"finish_reason"`
}

type delta struct {
	Content          string `json:"content"`
	ReasoningContent string `json:"reasoning_content"`
	// Reasoning is a string on most servers; anything else (a structured form) is ignored.
	Reasoning json.RawMessage `json:"reasoning"`
	ToolCalls []toolDelta     `json:"tool_calls"`
}

type toolDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type usage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	TotalTokens         int64 `json:"total_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func (u *usage) tokenUsage() *protocol.TokenUsage {
	t := &protocol.TokenUsage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if t.TotalTokens == 0 {
		t.TotalTokens = t.InputTokens + t.OutputTokens
	}
	if u.PromptTokensDetails != nil {
		t.CachedInputTokens = u.PromptTokensDetails.CachedTokens
	}
	if u.CompletionTokensDetails != nil {
		t.ReasoningOutputTokens = u.CompletionTokensDetails.ReasoningTokens
	}
	return t
}

// parseChunk reads one SSE data payload. done reports the `[DONE]` sentinel. Chunks of the
// common shape are read by decodeFast; the rest, and anything invalid, by encoding/json
// (FuzzChunk checks both give the same chunk).
func parseChunk(data []byte, c *chunk, sc *scratch) (done bool, err error) {
	data = bytes.TrimSpace(data)
	if string(data) == "[DONE]" {
		return true, nil
	}
	if decodeFast(data, c, sc) {
		return false, nil
	}
	*c = chunk{}
	return false, json.Unmarshal(data, c)
}

// reply accumulates the chunks of one attempt.
type reply struct {
	status       int
	id           string
	msgID, rsID  string
	started      bool
	text         strings.Builder
	hasText      bool
	thinking     strings.Builder
	calls        []*pendingCall
	finishReason string
	finished     bool
	usage        *protocol.TokenUsage
	chunk        chunk
	scratch      scratch
}

// pendingCall is a tool call being assembled from its fragments.
type pendingCall struct {
	index int
	id    string
	name  string
	args  strings.Builder
}

func (r *reply) messageID() string   { return r.msgID }
func (r *reply) reasoningID() string { return r.rsID }

// feed decodes one SSE payload and appends the events it yields to evs; done means the reply
// ended ([DONE]) and finish must be called.
func (r *reply) feed(evs []modelstream.ResponseEvent, data []byte, ts *toolSet, provider string) ([]modelstream.ResponseEvent, bool, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return evs, false, nil
	}
	c := &r.chunk
	done, err := parseChunk(data, c, &r.scratch)
	if err != nil {
		return nil, false, &ResponseError{Provider: provider, Status: r.status,
			Detail: fmt.Sprintf("sent a malformed chat completion chunk (%v): %s", err, snippet(data))}
	}
	if done {
		return evs, true, nil
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return nil, false, streamError(c.Error)
	}
	if !r.started {
		r.started = true
		r.id = c.ID
		if r.id == "" {
			r.id = "chat"
		}
		r.msgID, r.rsID = "msg_"+r.id, "rs_"+r.id
		evs = append(evs, modelstream.Created{})
	}
	if c.Usage != nil {
		r.usage = c.Usage.tokenUsage()
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue // only the first choice is read (n is never sent)
		}
		d := &ch.Delta
		if t := d.reasoningText(); t != "" {
			r.thinking.WriteString(t)
			evs = append(evs, modelstream.ReasoningContentDelta{ItemID: r.reasoningID(), Delta: t})
		}
		if d.Content != "" {
			r.hasText = true
			r.text.WriteString(d.Content)
			evs = append(evs, modelstream.OutputTextDelta{ItemID: r.messageID(), Delta: d.Content})
		}
		for j := range d.ToolCalls {
			r.addFragment(&d.ToolCalls[j])
		}
		if ch.FinishReason != "" {
			if err := checkFinish(ch.FinishReason, provider, r.status); err != nil {
				return nil, false, err
			}
			r.finishReason, r.finished = ch.FinishReason, true
		}
	}
	return evs, false, nil
}

// reasoningText is the reasoning delta under either name servers use.
func (d *delta) reasoningText() string {
	if d.ReasoningContent != "" {
		return d.ReasoningContent
	}
	if len(d.Reasoning) > 0 && d.Reasoning[0] == '"' {
		var s string
		if json.Unmarshal(d.Reasoning, &s) == nil {
			return s
		}
	}
	return ""
}

// addFragment merges one tool-call fragment: the first fragment of an index carries the id
// and name, later ones pieces of the arguments. A fragment with a new id starts a new call
// even at a used index, and a server that leaves out the index starts one with every id
// (servers that send whole calls do both).
func (r *reply) addFragment(f *toolDelta) {
	var pc *pendingCall
	switch {
	case f.Index != nil:
		for _, c := range r.calls {
			if c.index == *f.Index {
				pc = c // the latest call at this index
			}
		}
		if pc != nil && f.ID != "" && pc.id != "" && f.ID != pc.id {
			pc = nil
		}
		if pc == nil {
			pc = &pendingCall{index: *f.Index}
			r.calls = append(r.calls, pc)
		}
	case f.ID != "" || len(r.calls) == 0:
		pc = &pendingCall{index: len(r.calls)}
		r.calls = append(r.calls, pc)
	default:
		pc = r.calls[len(r.calls)-1]
	}
	if pc.id == "" {
		pc.id = f.ID
	}
	if pc.name == "" {
		pc.name = f.Function.Name
	}
	pc.args.WriteString(f.Function.Arguments)
}

// checkFinish accepts the finish reasons of a complete reply and turns a cut-short one into
// the error the Responses client gives for response.incomplete.
func checkFinish(reason, provider string, status int) error {
	switch reason {
	case "stop", "tool_calls", "function_call", "eos":
		return nil
	case "length":
		return &model.Error{Kind: model.KindIncomplete, Message: "Incomplete response returned, reason: max_output_tokens"}
	case "content_filter":
		return &model.Error{Kind: model.KindIncomplete, Message: "Incomplete response returned, reason: content_filter"}
	}
	return &ResponseError{Provider: provider, Status: status, Detail: fmt.Sprintf("ended the reply with unknown finish_reason %q", reason)}
}

// streamError classifies an error object received in the stream; a bare string is its
// message.
func streamError(raw json.RawMessage) error {
	if raw[0] == '"' {
		var msg string
		if json.Unmarshal(raw, &msg) == nil {
			raw, _ = json.Marshal(map[string]string{"message": msg})
		}
	}
	return model.ClassifyStreamError(raw)
}

// finish returns the finished items (reasoning, the assistant message, the tool calls in
// index order) and Completed.
func (r *reply) finish(ts *toolSet, provider string) ([]modelstream.ResponseEvent, error) {
	var evs []modelstream.ResponseEvent
	if r.thinking.Len() > 0 {
		evs = append(evs, modelstream.OutputItemDone{Item: protocol.ReasoningItem{ID: r.reasoningID(),
			Summary: []protocol.ReasoningSummary{},
			Content: []protocol.ReasoningContent{{Type: "reasoning_text", Text: r.thinking.String()}}}})
	}
	if r.hasText {
		evs = append(evs, modelstream.OutputItemDone{Item: protocol.MessageItem{ID: r.messageID(), Role: "assistant",
			Content: []protocol.ContentItem{{Type: protocol.ContentOutputText, Text: r.text.String()}}}})
	}
	calls := append([]*pendingCall(nil), r.calls...)
	sortCalls(calls)
	for _, pc := range calls {
		item, err := r.callItem(pc, ts, provider)
		if err != nil {
			return nil, err
		}
		evs = append(evs, modelstream.OutputItemDone{Item: item})
	}
	return append(evs, modelstream.Completed{ResponseID: r.id, Usage: r.usage}), nil
}

func sortCalls(cs []*pendingCall) {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].index < cs[j-1].index; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

// callItem turns an assembled call into the item the engine runs: a custom tool call for a
// freeform tool, a namespaced function call for a flattened MCP tool, a function call
// otherwise.
func (r *reply) callItem(pc *pendingCall, ts *toolSet, provider string) (protocol.ResponseItem, error) {
	if pc.name == "" {
		return nil, &ResponseError{Provider: provider, Status: r.status, Detail: fmt.Sprintf("sent tool call %d without a function name", pc.index)}
	}
	id := pc.id
	if id == "" {
		id = "call_" + r.id + "_" + strconv.Itoa(pc.index)
	}
	args := strings.TrimSpace(pc.args.String())
	if args == "" {
		args = "{}" // servers send nothing for a call without parameters
	}
	if !json.Valid([]byte(args)) {
		return nil, &ResponseError{Provider: provider, Status: r.status,
			Detail: fmt.Sprintf("sent tool call %q (%s) whose arguments are not valid JSON: %s", pc.name, id, snippet([]byte(args)))}
	}
	if ts.custom[pc.name] {
		var in struct {
			Input *string `json:"input"`
		}
		if err := json.Unmarshal([]byte(args), &in); err != nil || in.Input == nil {
			return nil, &ResponseError{Provider: provider, Status: r.status,
				Detail: fmt.Sprintf("called freeform tool %q (%s) without a string `input`: %s", pc.name, id, snippet([]byte(args)))}
		}
		return protocol.CustomToolCallItem{Status: "completed", CallID: id, Name: pc.name, Input: *in.Input}, nil
	}
	if ns, ok := ts.namespaced[pc.name]; ok {
		return protocol.FunctionCallItem{Name: ns.name, Namespace: ns.namespace, Arguments: args, CallID: id}, nil
	}
	return protocol.FunctionCallItem{Name: pc.name, Arguments: args, CallID: id}, nil
}
