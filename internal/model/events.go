package model

import (
	"encoding/json"

	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
)

// wireEvent is the union of the fields the handled Responses events carry.
type wireEvent struct {
	Type         string          `json:"type"`
	Delta        string          `json:"delta"`
	ItemID       string          `json:"item_id"`
	CallID       string          `json:"call_id"`
	SummaryIndex int64           `json:"summary_index"`
	ContentIndex int64           `json:"content_index"`
	Item         json.RawMessage `json:"item"`
	Response     json.RawMessage `json:"response"`
}

type wireResponse struct {
	ID                string          `json:"id"`
	Usage             *wireUsage      `json:"usage"`
	Error             json.RawMessage `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
}

type wireUsage struct {
	InputTokens        int64 `json:"input_tokens"`
	InputTokensDetails *struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int64 `json:"output_tokens"`
	OutputTokensDetails *struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int64 `json:"total_tokens"`
}

func (u *wireUsage) tokenUsage() *protocol.TokenUsage {
	if u == nil {
		return nil
	}
	t := &protocol.TokenUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.TotalTokens}
	if u.InputTokensDetails != nil {
		t.CachedInputTokens = u.InputTokensDetails.CachedTokens
	}
	if u.OutputTokensDetails != nil {
		t.ReasoningOutputTokens = u.OutputTokensDetails.ReasoningTokens
	}
	return t
}

// decode turns one SSE data payload into an event. It returns (nil, nil) for events to skip:
// unparseable data, unknown types, items that do not decode. A non-nil error ends the attempt
// (response.failed, response.incomplete).
func (s *Stream) decode(data []byte) (modelstream.ResponseEvent, error) {
	ev := &s.ev
	// The raw members point into data: not kept past this event (a whole answer's item
	// would stay reachable until the next one).
	defer func() { ev.Item, ev.Response = nil, nil }()
	err := decodeWire(data, ev, &s.scratch)
	if err == errFallback {
		*ev = wireEvent{}
		err = json.Unmarshal(data, ev)
	}
	if err != nil {
		s.c.log.Debug("skipping unparseable SSE data", "err", err)
		return nil, nil
	}
	switch ev.Type {
	case "response.output_text.delta":
		return modelstream.OutputTextDelta{ItemID: ev.ItemID, Delta: ev.Delta}, nil
	case "response.reasoning_summary_text.delta":
		return modelstream.ReasoningSummaryDelta{ItemID: ev.ItemID, Delta: ev.Delta, SummaryIndex: ev.SummaryIndex}, nil
	case "response.reasoning_text.delta":
		return modelstream.ReasoningContentDelta{ItemID: ev.ItemID, Delta: ev.Delta, ContentIndex: ev.ContentIndex}, nil
	case "response.custom_tool_call_input.delta":
		return modelstream.CustomToolCallInputDelta{ItemID: ev.ItemID, CallID: ev.CallID, Delta: ev.Delta}, nil
	case "response.reasoning_summary_part.added":
		return modelstream.ReasoningSummaryPartAdded{ItemID: ev.ItemID, SummaryIndex: ev.SummaryIndex}, nil
	case "response.output_item.added", "response.output_item.done":
		if len(ev.Item) == 0 {
			return nil, nil
		}
		item, err := protocol.DecodeResponseItem(ev.Item)
		if err != nil {
			s.c.log.Debug("skipping output item that does not decode", "type", ev.Type, "err", err)
			return nil, nil
		}
		if ev.Type == "response.output_item.added" {
			return modelstream.OutputItemAdded{Item: item}, nil
		}
		return modelstream.OutputItemDone{Item: item}, nil
	case "response.created":
		return modelstream.Created{}, nil
	case "response.completed":
		var r wireResponse
		if len(ev.Response) == 0 || json.Unmarshal(ev.Response, &r) != nil {
			// Codex treats a completed event it cannot read as a failed stream.
			return nil, &Error{Kind: KindStream, Message: "failed to parse response.completed"}
		}
		return modelstream.Completed{ResponseID: r.ID, Usage: r.Usage.tokenUsage()}, nil
	case "response.failed":
		var r wireResponse
		if len(ev.Response) == 0 || json.Unmarshal(ev.Response, &r) != nil {
			return nil, &Error{Kind: KindStream, Message: "response.failed event received"}
		}
		return nil, classifyFailed(r.Error)
	case "response.incomplete":
		reason := "unknown"
		var r wireResponse
		if json.Unmarshal(ev.Response, &r) == nil && r.IncompleteDetails != nil && r.IncompleteDetails.Reason != "" {
			reason = r.IncompleteDetails.Reason
		}
		return nil, &Error{Kind: KindIncomplete, Message: "Incomplete response returned, reason: " + reason}
	}
	return nil, nil
}
