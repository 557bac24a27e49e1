package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

type sampleResult struct {
	// lastMessage is the text of the last assistant message of this response.
	lastMessage *string
	// followUp is set when tools ran: their outputs go back to the model.
	followUp bool
	// endTurn is set when a tool asked to end the turn (an approval answered abort).
	endTurn bool
}

// prompt builds the request for the turn's current history.
func (tr *turn) prompt() modelstream.Prompt { return tr.promptFor(tr.t.hist.snapshot()) }

// promptFor builds the request for the given history.
func (tr *turn) promptFor(input []protocol.ResponseItem) modelstream.Prompt {
	s, t := tr.s, tr.t
	p := modelstream.Prompt{
		Model:             s.model,
		ParallelToolCalls: s.info.ParallelToolCalls,
		OutputSchema:      s.outputSchema,
		Verbosity:         t.cfg.Verbosity,
		ServiceTier:       s.serviceTier,
		PromptCacheKey:    t.id,
		ThreadID:          t.id,
		InstallationID:    t.cfg.InstallationID,
	}
	if tr.turnState != "" || len(t.cfg.RequestHeaders) > 0 {
		p.ExtraHeaders = make(map[string]string, len(t.cfg.RequestHeaders)+1)
		for k, v := range t.cfg.RequestHeaders {
			p.ExtraHeaders[k] = v
		}
		if tr.turnState != "" {
			p.ExtraHeaders["x-codex-turn-state"] = tr.turnState
		}
	}
	if t.cfg.InstructionsField {
		p.Instructions = s.baseInstructions()
		p.Input = input
	} else {
		p.Input = append([]protocol.ResponseItem{textMessage("developer", s.baseInstructions())}, input...)
	}
	if p.Verbosity == "" {
		p.Verbosity = s.info.DefaultVerbosity
	}
	for _, spec := range tr.registry.Specs() {
		p.Tools = append(p.Tools, json.RawMessage(spec))
	}
	for _, spec := range s.info.Tools.Hosted {
		p.Tools = append(p.Tools, json.RawMessage(spec))
	}
	if s.info.SupportsReasoning {
		r := &modelstream.Reasoning{Effort: s.effort, Summary: s.summary}
		if r.Effort == "" {
			r.Effort = s.info.DefaultReasoningEffort
		}
		if r.Summary == "" {
			r.Summary = s.info.DefaultReasoningSummary
		}
		if r.Summary == "none" {
			r.Summary = ""
		}
		p.Reasoning = r
	}
	return p
}

// rerouteWarning is Codex 0.169's warning when the server answered with another model than
// the one requested (the `openai-model` response header). Its wording is fixed in that
// release: it names gpt-5.2 as the fallback whatever the header says (observed with gpt-5.4,
// gpt-5.1-codex-mini and a made-up name; model/rerouted carries the real one).
const rerouteWarning = "Your account was flagged for potentially high-risk cyber activity and this request was routed to gpt-5.2" +
	" as a fallback. To regain access to gpt-5.3-codex, apply for trusted access: https://chatgpt.com/cyber or learn more: https://developers.openai.com/codex/concepts/cyber-safety"

// retryStreamDisconnected is the codex_error_info Codex 0.169 puts on every retry notice,
// whatever failed (a cut stream, an idle stall or an HTTP 5xx): the stream is reconnecting.
var retryStreamDisconnected = json.RawMessage(`{"response_stream_disconnected":{"http_status_code":null}}`)

// retryObserver reports stream retries as stream_error events. As in Codex 0.169, whose
// retried response is a new sampling request, the failed response first reports what is
// known (the rate limits, as a response cut short does), and what it streamed is not
// continued: faces start the retried response's items afresh after the stream_error.
func (tr *turn) retryObserver(ri modelstream.RetryInfo) {
	if !ri.Stream {
		return
	}
	tr.emit(tr.t.addUsage(nil, tr.s.info.window()))
	ev := protocol.StreamErrorEvent{Message: fmt.Sprintf("Reconnecting... %d/%d", ri.Attempt, ri.Max), CodexErrorInfo: retryStreamDisconnected}
	if ri.Err != nil {
		d := ri.Err.Error()
		ev.AdditionalDetails = &d
	}
	tr.emit(ev)
}

// sample streams one response, emitting its events, recording its items and running its
// tool calls. Each tool output is written to the rollout as soon as its call returns, before
// its end event goes out (turn.release); it joins the history after the stream ends, in call
// order.
func (tr *turn) sample() (sampleResult, error) {
	var res sampleResult
	stream, err := tr.t.cfg.Streamer.Stream(tr.ctx, tr.prompt(), tr.retryObserver)
	if err != nil {
		return res, err
	}
	defer stream.Close()

	// Tool calls run under their own context so a failed stream can stop them.
	callCtx, stopCalls := context.WithCancel(tr.ctx)
	defer stopCalls()
	var runs []*callRun
	var completed *modelstream.Completed
	var streamErr error
	for {
		ev, err := stream.Next(tr.ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			streamErr = err
			stopCalls()
			break
		}
		switch ev.(type) {
		case modelstream.OutputTextDelta, modelstream.ReasoningSummaryDelta, modelstream.ReasoningContentDelta, modelstream.OutputItemDone:
			if tr.firstToken.IsZero() {
				tr.firstToken = tr.t.now()
			}
		}
		switch ev := ev.(type) {
		case modelstream.OutputTextDelta:
			if tr.s.mode == protocol.ModePlan {
				tr.streamPlanText(ev.Delta)
			} else {
				tr.emit(protocol.AgentMessageDeltaEvent{Delta: ev.Delta})
			}
		case modelstream.ReasoningSummaryDelta:
			tr.emit(protocol.AgentReasoningDeltaEvent{Delta: ev.Delta})
		case modelstream.ReasoningContentDelta:
			tr.emit(protocol.AgentReasoningRawContentDeltaEvent{Delta: ev.Delta})
		case modelstream.ReasoningSummaryPartAdded:
			tr.emit(protocol.AgentReasoningSectionBreakEvent{ItemID: ev.ItemID, SummaryIndex: ev.SummaryIndex})
		case modelstream.OutputItemAdded:
			switch it := ev.Item.(type) {
			case protocol.WebSearchCallItem:
				tr.emit(protocol.WebSearchBeginEvent{CallID: it.ID})
			case protocol.MessageItem:
				if it.Role == "assistant" {
					// The answer's item starts when the model opens it, before any text (as
					// in Codex: a stream cut there still shows the message begun).
					tr.emit(protocol.ItemStartedEvent{ThreadID: tr.t.id, TurnID: tr.id, Item: agentMessageStarted(it.ID)})
				}
			}
		case modelstream.OutputItemDone:
			if run := tr.itemDone(callCtx, ev.Item, &res); run != nil {
				runs = append(runs, run)
			}
		case modelstream.ServerTurnState:
			if tr.turnState == "" {
				tr.turnState = ev.Token
			}
		case modelstream.RateLimits:
			tr.t.setRateLimits(ev.Snapshot)
		case modelstream.ServerModel:
			if !tr.rerouteWarned {
				tr.rerouteWarned = true
				tr.emit(protocol.ModelRerouteEvent{FromModel: tr.s.model, ToModel: ev.Model, Reason: protocol.ModelRerouteHighRiskCyberActivity})
				tr.emit(protocol.WarningEvent{Message: rerouteWarning})
			}
		case modelstream.Completed:
			completed = &ev
		}
	}
	for _, r := range runs {
		<-r.done
	}
	// Like Codex, the response's usage is reported once its tool calls have run; a response
	// cut short or interrupted reports what is known (the rate limits) all the same.
	if completed != nil {
		tr.emit(tr.t.addUsage(completed.Usage, tr.s.info.window()))
	} else {
		tr.emit(tr.t.addUsage(nil, tr.s.info.window()))
	}
	if len(runs) > 0 {
		res.followUp = true
		if tr.ctx.Err() == nil {
			tr.recordOutputs(runs)
		}
	}
	for _, r := range runs {
		if r.result.EndTurn {
			res.endTurn = true
		}
		if r.err != nil && streamErr == nil && tr.ctx.Err() == nil {
			streamErr = fmt.Errorf("tool %s: %w", r.call.Name, r.err)
		}
	}
	return res, streamErr
}

// itemDone records a finished output item, emits what it shows, and starts a tool call.
func (tr *turn) itemDone(ctx context.Context, item protocol.ResponseItem, res *sampleResult) *callRun {
	var call tool.Call
	switch it := item.(type) {
	case protocol.MessageItem:
		if !tr.record(item) || it.Role != "assistant" {
			return nil
		}
		text := answerText(it.Content)
		if tr.s.mode == protocol.ModePlan {
			text = tr.finishPlanMessage(text)
		}
		res.lastMessage = &text
		tr.emit(protocol.AgentMessageEvent{Message: text, Phase: it.Phase})
		return nil
	case protocol.ReasoningItem:
		if !tr.record(item) {
			return nil
		}
		for _, s := range it.Summary {
			tr.emit(protocol.AgentReasoningEvent{Text: s.Text})
		}
		for _, c := range it.Content {
			tr.emit(protocol.AgentReasoningRawContentEvent{Text: c.Text})
		}
		return nil
	case protocol.FunctionCallItem:
		call = tool.Call{Kind: tool.FunctionCall, CallID: it.CallID, Name: it.Name, Namespace: it.Namespace, Arguments: it.Arguments}
	case protocol.CustomToolCallItem:
		call = tool.Call{Kind: tool.CustomCall, CallID: it.CallID, Name: it.Name, Arguments: it.Input}
	case protocol.LocalShellCallItem:
		id := it.ID
		if it.CallID != nil {
			id = *it.CallID
		}
		args, err := json.Marshal(it.Action)
		if err != nil {
			args = []byte("{}")
		}
		call = tool.Call{Kind: tool.LocalShellCall, CallID: id, Name: tools.NameLocalShell, Arguments: string(args)}
	case protocol.WebSearchCallItem:
		if tr.record(item) {
			tr.emit(protocol.WebSearchEndEvent{CallID: it.ID, Query: webSearchQuery(it.Action), Action: it.Action})
		}
		return nil
	case protocol.OtherItem:
		c, ok := toolSearchCall(it)
		if !ok {
			tr.record(item)
			return nil
		}
		call = c
	default:
		tr.record(item)
		return nil
	}
	if !tr.recordCall(item, call) {
		return nil
	}
	return tr.startCall(ctx, call)
}

// webSearchQuery is the query of a hosted web search action ({"type":"search","query":…}).
func webSearchQuery(action json.RawMessage) string {
	var a struct {
		Query   string   `json:"query"`
		Queries []string `json:"queries"`
	}
	if json.Unmarshal(action, &a) != nil {
		return ""
	}
	if a.Query == "" && len(a.Queries) > 0 {
		return a.Queries[0]
	}
	return a.Query
}

// answerText is the text of an answer's content, its parts joined; an answer of one text part (the usual
// answer) shares that part's string instead of copying a long answer once more.
func answerText(content []protocol.ContentItem) string {
	isText := func(c protocol.ContentItem) bool {
		return c.Type == protocol.ContentOutputText || c.Type == protocol.ContentInputText
	}
	if len(content) == 1 && isText(content[0]) {
		return content[0].Text
	}
	var b strings.Builder
	for _, c := range content {
		if isText(c) {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// agentMessageStarted is the AgentMessage item an item_started event opens.
func agentMessageStarted(id string) json.RawMessage {
	b, _ := json.Marshal(struct {
		Type    string `json:"type"`
		ID      string `json:"id"`
		Content []any  `json:"content"`
	}{"AgentMessage", id, []any{}})
	return b
}

// agentMessageItemID reads an AgentMessage item's id; false for any other item.
func agentMessageItemID(raw json.RawMessage) (string, bool) {
	var it struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	}
	if json.Unmarshal(raw, &it) != nil || it.Type != "AgentMessage" {
		return "", false
	}
	return it.ID, true
}
