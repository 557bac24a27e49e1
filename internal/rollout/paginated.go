package rollout

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/protocol"
)

// HistoryModePaginated is session_meta.history_mode of the thread history Codex 0.169 writes
// by default ("paginated thread history"); a rollout without it is of the older ("legacy")
// form. In the paginated form the user's and the agent's messages and the reasoning are
// item_completed events carrying thread items (UserMessage, AgentMessage, Reasoning) instead
// of user_message, agent_message and agent_reasoning events. Codex builds its thread list
// (title, first message) and its turns from those items only, so a thread it should list
// has to be written this way (testdata/paginated/README.md has what was observed).
const HistoryModePaginated = "paginated"

// Paginated reports whether the rollout is in the paginated form.
func (m SessionMeta) Paginated() bool { return m.HistoryMode == HistoryModePaginated }

// itemCompletedLine is an item_completed event as Codex 0.169 writes it in a rollout.
type itemCompletedLine struct {
	Type          string `json:"type"` // "item_completed"
	ThreadID      string `json:"thread_id"`
	TurnID        string `json:"turn_id"`
	Item          any    `json:"item"`
	StartedAtMs   *int64 `json:"started_at_ms,omitempty"`
	CompletedAtMs int64  `json:"completed_at_ms"`
}

// Thread items as Codex serialises them in rollouts (TurnItem, tagged by "type").
type (
	userMessageItem struct {
		Type    string      `json:"type"` // "UserMessage"
		ID      string      `json:"id"`
		Content []userInput `json:"content"`
	}
	// userInput is one part of a user message: text, image (a URL) or local_image (a path).
	userInput struct {
		Type         string            `json:"type"`
		Text         *string           `json:"text,omitempty"`
		TextElements []json.RawMessage `json:"text_elements,omitempty"`
		ImageURL     string            `json:"image_url,omitempty"`
		Path         string            `json:"path,omitempty"`
	}
	agentMessageItem struct {
		Type    string             `json:"type"` // "AgentMessage"
		ID      string             `json:"id"`
		Content []agentMessagePart `json:"content"`
		Phase   string             `json:"phase,omitempty"`
	}
	agentMessagePart struct {
		Type string `json:"type"` // "Text"
		Text string `json:"text"`
	}
	reasoningItem struct {
		Type        string   `json:"type"` // "Reasoning"
		ID          string   `json:"id"`
		SummaryText []string `json:"summary_text"`
		RawContent  []string `json:"raw_content"`
	}
	// commandExecutionItem is a finished command; Codex names its working directory by a
	// file: URL.
	commandExecutionItem struct {
		Type             string                   `json:"type"` // "CommandExecution"
		ID               string                   `json:"id"`   // the call id
		ProcessID        *string                  `json:"process_id"`
		Command          []string                 `json:"command"`
		Cwd              string                   `json:"cwd"`
		ParsedCmd        []protocol.ParsedCommand `json:"parsed_cmd"`
		Source           string                   `json:"source"`
		Status           string                   `json:"status"`
		AggregatedOutput string                   `json:"aggregated_output"`
		ExitCode         int                      `json:"exit_code"`
		Duration         protocol.Duration        `json:"duration"`
	}
	fileChangeItem struct {
		Type    string                         `json:"type"` // "FileChange"
		ID      string                         `json:"id"`   // the call id
		Changes map[string]protocol.FileChange `json:"changes"`
		Status  string                         `json:"status"`
		Stdout  string                         `json:"stdout"`
		Stderr  string                         `json:"stderr"`
	}
)

// itemWriter turns the legacy message events into the thread items of the paginated form,
// for the recorder and for the migration. Consecutive reasoning events make one Reasoning
// item, written again (same id, more text) with each part, as Codex's migration does; Codex
// reads a later item_completed of an id as the item's new state.
type itemWriter struct {
	turnID    string
	newID     func() string
	reasoning *reasoningItem
}

// item returns the thread item msg becomes, or nil when msg is written as it is (it may
// still end a run of reasoning or start a turn).
func (w *itemWriter) item(msg protocol.EventMsg) any {
	switch m := msg.(type) {
	case protocol.AgentReasoningEvent:
		r := w.reasoningItem()
		r.SummaryText = append(r.SummaryText, m.Text)
		return *r
	case protocol.AgentReasoningRawContentEvent:
		r := w.reasoningItem()
		r.RawContent = append(r.RawContent, m.Text)
		return *r
	}
	w.reasoning = nil
	switch m := msg.(type) {
	case protocol.TurnStartedEvent:
		w.turnID = m.TurnID
	case protocol.UserMessageEvent:
		return userItemOf(m, w.newID())
	case protocol.AgentMessageEvent:
		return agentMessageItem{Type: "AgentMessage", ID: w.newID(), Content: []agentMessagePart{{Type: "Text", Text: m.Message}}, Phase: m.Phase}
	case protocol.ExecCommandEndEvent:
		return commandItemOf(m)
	case protocol.PatchApplyEndEvent:
		return fileChangeItemOf(m)
	}
	return nil
}

// toolEnd reports the events the paginated form keeps as thread items although the older
// form leaves them out: finished commands and patches (Codex shows them when it replays a
// thread).
func toolEnd(msg protocol.EventMsg) bool {
	switch msg.(type) {
	case protocol.ExecCommandEndEvent, protocol.PatchApplyEndEvent:
		return true
	}
	return false
}

func commandItemOf(m protocol.ExecCommandEndEvent) commandExecutionItem {
	it := commandExecutionItem{Type: "CommandExecution", ID: m.CallID, Command: m.Command, ParsedCmd: m.ParsedCmd,
		Source: string(m.Source), Status: string(m.Status), AggregatedOutput: m.AggregatedOutput, ExitCode: m.ExitCode, Duration: m.Duration}
	if m.ProcessID != "" {
		it.ProcessID = &m.ProcessID
	}
	if it.Command == nil {
		it.Command = []string{}
	}
	if it.ParsedCmd == nil {
		it.ParsedCmd = []protocol.ParsedCommand{}
	}
	if m.Cwd != "" {
		it.Cwd = (&url.URL{Scheme: "file", Path: m.Cwd}).String()
	}
	if it.Source == "" {
		it.Source = string(protocol.SourceAgent)
	}
	if it.Status == "" {
		it.Status = string(protocol.ExecCompleted)
		if m.ExitCode != 0 {
			it.Status = string(protocol.ExecFailed)
		}
	}
	return it
}

func fileChangeItemOf(m protocol.PatchApplyEndEvent) fileChangeItem {
	it := fileChangeItem{Type: "FileChange", ID: m.CallID, Changes: m.Changes, Status: string(m.Status), Stdout: m.Stdout, Stderr: m.Stderr}
	if it.Changes == nil {
		it.Changes = map[string]protocol.FileChange{}
	}
	if it.Status == "" {
		it.Status = string(protocol.PatchCompleted)
		if !m.Success {
			it.Status = string(protocol.PatchFailed)
		}
	}
	return it
}

func (w *itemWriter) reasoningItem() *reasoningItem {
	if w.reasoning == nil {
		w.reasoning = &reasoningItem{Type: "Reasoning", ID: w.newID(), SummaryText: []string{}, RawContent: []string{}}
	}
	return w.reasoning
}

func userItemOf(m protocol.UserMessageEvent, id string) userMessageItem {
	it := userMessageItem{Type: "UserMessage", ID: id, Content: []userInput{}}
	if m.Message != "" || (len(m.Images) == 0 && len(m.LocalImages) == 0) {
		text := m.Message
		elems := m.TextElements
		if elems == nil {
			elems = []json.RawMessage{}
		}
		it.Content = append(it.Content, userInput{Type: "text", Text: &text, TextElements: elems})
	}
	for _, u := range m.Images {
		it.Content = append(it.Content, userInput{Type: "image", ImageURL: u})
	}
	for _, p := range m.LocalImages {
		it.Content = append(it.Content, userInput{Type: "local_image", Path: p})
	}
	return it
}

// MarshalJSON writes text_elements as [] on text parts even when empty, as Codex does (it
// reads a part without them as malformed).
func (u userInput) MarshalJSON() ([]byte, error) {
	type plain userInput
	if u.Type != "text" {
		return json.Marshal(plain(u))
	}
	text := ""
	if u.Text != nil {
		text = *u.Text
	}
	elems := u.TextElements
	if elems == nil {
		elems = []json.RawMessage{}
	}
	return json.Marshal(struct {
		Type         string            `json:"type"`
		Text         string            `json:"text"`
		TextElements []json.RawMessage `json:"text_elements"`
	}{u.Type, text, elems})
}

// itemReader turns the item_completed events of the paginated form back into the events
// the faces replay (user_message, agent_message, agent_reasoning…), so a thread reads the
// same whichever form it was written in. A Reasoning item written again under its id gives
// only its new parts; a message item written again gives nothing more.
type itemReader struct {
	seen      map[string]bool
	reasoning map[string][2]int // parts already given: summary, raw
}

// events returns the events an item_completed payload stands for; ok is false for other
// payloads and for items of other kinds (plans, compactions, commands), which are replayed
// as they are.
func (r *itemReader) events(payload []byte) (out []protocol.EventMsg, ok bool) {
	var head struct {
		Type string          `json:"type"`
		Item json.RawMessage `json:"item"`
	}
	if json.Unmarshal(payload, &head) != nil || head.Type != "item_completed" {
		return nil, false
	}
	if r.seen == nil {
		r.seen, r.reasoning = map[string]bool{}, map[string][2]int{}
	}
	switch peekType(head.Item) {
	case "UserMessage":
		var it userMessageItem
		if json.Unmarshal(head.Item, &it) != nil {
			return nil, false
		}
		if r.once(it.ID) {
			out = append(out, userEventOf(it))
		}
		return out, true
	case "AgentMessage":
		var it agentMessageItem
		if json.Unmarshal(head.Item, &it) != nil {
			return nil, false
		}
		if r.once(it.ID) {
			var text strings.Builder
			for _, c := range it.Content {
				text.WriteString(c.Text)
			}
			out = append(out, protocol.AgentMessageEvent{Message: text.String(), Phase: it.Phase})
		}
		return out, true
	case "Reasoning":
		var it reasoningItem
		if json.Unmarshal(head.Item, &it) != nil {
			return nil, false
		}
		done := r.reasoning[it.ID]
		for _, s := range it.SummaryText[min(done[0], len(it.SummaryText)):] {
			out = append(out, protocol.AgentReasoningEvent{Text: s})
		}
		for _, s := range it.RawContent[min(done[1], len(it.RawContent)):] {
			out = append(out, protocol.AgentReasoningRawContentEvent{Text: s})
		}
		if it.ID != "" {
			r.reasoning[it.ID] = [2]int{max(done[0], len(it.SummaryText)), max(done[1], len(it.RawContent))}
		}
		return out, true
	case "CommandExecution", "FileChange":
		// Kept for Codex; the older form never had them, so replays leave them out.
		return nil, true
	}
	return nil, false
}

// once reports whether the item id is new (items without an id always are).
func (r *itemReader) once(id string) bool {
	if id == "" {
		return true
	}
	if r.seen[id] {
		return false
	}
	r.seen[id] = true
	return true
}

func userEventOf(it userMessageItem) protocol.UserMessageEvent {
	var ev protocol.UserMessageEvent
	var texts []string
	for _, c := range it.Content {
		switch c.Type {
		case "text":
			if c.Text != nil {
				texts = append(texts, *c.Text)
			}
			ev.TextElements = append(ev.TextElements, c.TextElements...)
		case "image":
			ev.Images = append(ev.Images, c.ImageURL)
		case "local_image":
			ev.LocalImages = append(ev.LocalImages, c.Path)
		}
	}
	ev.Message = strings.Join(texts, "\n")
	return ev
}

// newUUID names a thread item as Codex does (UUIDv7).
func newUUID() string {
	if id, err := uuid.NewV7(); err == nil {
		return id.String()
	}
	return uuid.NewString()
}

// metaHeadMaxBytes bounds the read of a session_meta line (Codex's carries the base
// instructions, tens of KiB).
const metaHeadMaxBytes = 8 << 20

// readMetaHead reads the id and history mode of the rollout open in f from its first line;
// zero values when it has none.
func readMetaHead(f *os.File) metaHead {
	br := bufio.NewReaderSize(io.NewSectionReader(f, 0, metaHeadMaxBytes), 64<<10)
	raw, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		long := append([]byte(nil), raw...)
		for errors.Is(err, bufio.ErrBufferFull) {
			raw, err = br.ReadSlice('\n')
			long = append(long, raw...)
		}
		raw = long
	}
	var m metaHead
	if l, ok := parseLine(raw); ok && l.Type == TypeSessionMeta {
		_ = json.Unmarshal(l.Payload, &m)
	}
	return m
}
