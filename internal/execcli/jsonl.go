package execcli

import (
	"io"

	"github.com/gocodex/gocodex/internal/items"
	"github.com/gocodex/gocodex/protocol"
)

// JSONWriter writes the `exec --json` event stream of Codex 0.169, one JSON object a line:
// thread.started, turn.started, item.started/updated/completed, turn.completed,
// turn.failed and error. Streaming deltas produce no lines, as in Codex.
type JSONWriter struct {
	w    io.Writer
	proj *items.Projector
	line []byte // reused for every line

	usage     protocol.TokenUsage
	turnError *string // the last error event of the running turn
	failed    bool
	lastMsg   *string
}

// NewJSONWriter returns a writer for one thread.
func NewJSONWriter(w io.Writer) *JSONWriter {
	return &JSONWriter{w: w, proj: items.NewProjector()}
}

// TurnFailed reports whether a turn ended with turn.failed.
func (j *JSONWriter) TurnFailed() bool { return j.failed }

// LastAgentMessage is the last_agent_message of the last completed turn.
func (j *JSONWriter) LastAgentMessage() (string, bool) {
	if j.lastMsg == nil {
		return "", false
	}
	return *j.lastMsg, true
}

// Handle writes the lines one event causes.
func (j *JSONWriter) Handle(ev protocol.Event) error {
	switch m := ev.Msg.(type) {
	case protocol.AgentMessageDeltaEvent, protocol.AgentReasoningDeltaEvent,
		protocol.AgentReasoningRawContentDeltaEvent:
		// The hot path: no line is written, and no item of exec --json depends on text
		// deltas (messages and reasoning are written whole), so the fold is spared them.
		return nil
	case protocol.ExecCommandOutputDeltaEvent:
		// A command's output deltas are its output when its end carries none.
		j.proj.Apply(ev.Msg)
		return nil
	case protocol.SessionConfiguredEvent:
		return j.emit(threadStarted{Type: "thread.started", ThreadID: m.SessionID})
	case protocol.TurnStartedEvent:
		j.turnError = nil
		return j.emit(typeOnly{Type: "turn.started"})
	case protocol.TokenCountEvent:
		if m.Info != nil {
			j.usage = m.Info.TotalTokenUsage
		}
		return nil
	case protocol.ErrorEvent:
		msg := m.Message
		j.turnError = &msg
		return j.emit(errorEvent{Type: "error", Message: msg})
	case protocol.StreamErrorEvent:
		// A retry in progress: reported, but it does not fail the turn.
		msg := m.Message
		if m.AdditionalDetails != nil && *m.AdditionalDetails != "" {
			msg += " (" + *m.AdditionalDetails + ")"
		}
		return j.emit(errorEvent{Type: "error", Message: msg})
	case protocol.TurnCompleteEvent:
		if err := j.items(m); err != nil {
			return err
		}
		return j.turnEnded(m)
	case protocol.TurnAbortedEvent:
		// Codex writes no line for an interrupted turn but exits 1.
		j.failed = true
		j.turnError = nil
	}
	return j.items(ev.Msg)
}

func (j *JSONWriter) items(msg protocol.EventMsg) error {
	for _, u := range j.proj.Apply(msg) {
		if err := j.emit(itemEvent{Type: string(u.Phase), Item: u.Item}); err != nil {
			return err
		}
	}
	return nil
}

func (j *JSONWriter) turnEnded(m protocol.TurnCompleteEvent) error {
	if m.LastAgentMessage != nil {
		msg := *m.LastAgentMessage
		j.lastMsg = &msg
	}
	failure := j.turnError
	if m.Error != nil {
		msg := m.Error.Message
		failure = &msg
	}
	j.turnError = nil
	if failure != nil {
		j.failed = true
		return j.emit(turnFailed{Type: "turn.failed", Error: errorBody{Message: *failure}})
	}
	u := j.usage
	return j.emit(turnCompleted{Type: "turn.completed", Usage: usage{
		InputTokens:           u.InputTokens,
		CachedInputTokens:     u.CachedInputTokens,
		CacheWriteInputTokens: u.CacheWriteInputTokens,
		OutputTokens:          u.OutputTokens,
		ReasoningOutputTokens: u.ReasoningOutputTokens,
	}})
}

func (j *JSONWriter) emit(v any) error {
	b, err := protocol.Marshal(v)
	if err != nil {
		return err
	}
	j.line = append(append(j.line[:0], b...), '\n')
	_, err = j.w.Write(j.line)
	return err
}

// The exec JSONL shapes; field order is Codex's.
type typeOnly struct {
	Type string `json:"type"`
}

type threadStarted struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
}

type itemEvent struct {
	Type string     `json:"type"`
	Item items.Item `json:"item"`
}

type usage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	CacheWriteInputTokens int64 `json:"cache_write_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
}

type turnCompleted struct {
	Type  string `json:"type"`
	Usage usage  `json:"usage"`
}

type errorBody struct {
	Message string `json:"message"`
}

type turnFailed struct {
	Type  string    `json:"type"`
	Error errorBody `json:"error"`
}

type errorEvent struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}
