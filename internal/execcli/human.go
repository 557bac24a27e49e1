package execcli

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/host/agents"
	"github.com/gocodex/gocodex/internal/items"
	"github.com/gocodex/gocodex/protocol"
)

// SummaryEntry is one "key: value" line of the header printed when the session starts.
type SummaryEntry struct {
	Key, Value string
}

// HumanOptions configures the human-readable writer.
type HumanOptions struct {
	// Stdout receives only the final message; Stderr everything else, as in Codex, so
	// `gocodex exec "…" > answer.txt` captures just the answer.
	Stdout, Stderr io.Writer
	// Color turns on ANSI styling (--color, or auto when stderr is a terminal).
	Color bool
	// Title is the first header line, e.g. "OpenAI Codex v0.169.0".
	Title string
	// Summary lines in order (Codex: workdir, model, provider, approval, sandbox,
	// reasoning effort, reasoning summaries); "session id" is appended from the event.
	Summary []SummaryEntry
	// Prompt is echoed under "user" after the header.
	Prompt string
	// FinalMessageToStdout prints the last agent message on Stdout at the end of each turn.
	// Codex does so unless stdout is a terminal (where it would only repeat stderr).
	FinalMessageToStdout bool
	// SubagentUsage, when set, reports a thread's sub-agents' token usage: the summary at a
	// turn's end adds each one's and the total with them (gocodex's own; Codex's exec
	// counts the root's requests only).
	SubagentUsage func(threadID string) ([]agents.AgentUsage, protocol.TokenUsage)
}

// HumanWriter prints a thread's events for a person, streaming as events arrive.
type HumanWriter struct {
	o     HumanOptions
	sty   styler
	usage *protocol.TokenUsage
	// threadID is the session's, whose sub-agents' usage the summary adds.
	threadID string
	failed   bool
	// turnError is the last error event of the running turn: the turn failed.
	turnError *string
	lastMsg   *string
	fold      *items.Fold
}

// NewHumanWriter returns a writer for one thread.
func NewHumanWriter(o HumanOptions) *HumanWriter {
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	return &HumanWriter{o: o, sty: styler{on: o.Color}, fold: items.NewFold(items.FoldOptions{})}
}

// TurnFailed reports whether a turn ended with an error.
func (h *HumanWriter) TurnFailed() bool { return h.failed }

// LastAgentMessage is the last_agent_message of the last completed turn.
func (h *HumanWriter) LastAgentMessage() (string, bool) {
	if h.lastMsg == nil {
		return "", false
	}
	return *h.lastMsg, true
}

// Handle prints one event: the item changes it causes (through the fold), then what the
// turn-level events say.
func (h *HumanWriter) Handle(ev protocol.Event) error {
	if items.StreamsTextOnly(ev.Msg) {
		return nil // the hot path: messages, reasoning and output are printed whole
	}
	s := h.sty
	var b strings.Builder
	for _, ch := range h.fold.Apply(ev.Msg) {
		h.item(&b, ch)
	}
	switch m := ev.Msg.(type) {
	case protocol.SessionConfiguredEvent:
		h.threadID = m.SessionID
		h.header(&b, m)
	case protocol.TurnStartedEvent:
		h.turnError = nil
	case protocol.TurnDiffEvent:
		b.WriteString(m.UnifiedDiff + "\n")
	case protocol.ErrorEvent:
		msg := m.Message
		h.turnError = &msg
		b.WriteString(s.errorLabel() + " " + m.Message + "\n")
	case protocol.StreamErrorEvent:
		b.WriteString(s.errorLabel() + " " + m.Message + "\n")
	case protocol.RequestUserInputEvent:
		b.WriteString(s.warningLabel() + " " + NoUserNote + "\n")
	case protocol.ExecApprovalRequestEvent, protocol.ApplyPatchApprovalRequestEvent:
		b.WriteString(s.warningLabel() + " " + NoApproverNote + "\n")
	case protocol.BackgroundEventEvent:
		b.WriteString(s.dim(m.Message) + "\n")
	case protocol.DeprecationNoticeEvent:
		b.WriteString(s.warningLabel() + " " + m.Summary + "\n")
	case protocol.TurnAbortedEvent:
		// Codex exits 1 after an interrupted turn.
		h.failed = true
		b.WriteString(s.dim("turn "+string(m.Reason)) + "\n")
	case protocol.TokenCountEvent:
		if m.Info != nil {
			u := m.Info.TotalTokenUsage
			h.usage = &u
		}
	case protocol.TurnCompleteEvent:
		return h.turnEnded(m)
	}
	if b.Len() == 0 {
		return nil
	}
	_, err := io.WriteString(h.o.Stderr, b.String())
	return err
}

// item prints one item change: a tool call when it begins and when it ends, a message, a
// reasoning part or a warning when it is whole, each new plan.
func (h *HumanWriter) item(b *strings.Builder, ch items.Change) {
	s := h.sty
	begins := ch.Phase == items.Started || (ch.Phase == items.Updated && ch.Delta.Kind == items.DeltaBegun)
	ends := ch.Phase == items.Completed && !ch.CutShort
	switch it := ch.Body.(type) {
	case *items.Reasoning:
		if ch.Phase == items.Updated && ch.Delta.Kind == items.DeltaSummaryDone {
			b.WriteString(s.dim(ch.Delta.Text) + "\n")
		}
	case *items.AgentMessage:
		if ends {
			b.WriteString(s.tag("codex") + "\n" + it.Text + "\n")
		}
	case *items.Notice:
		if ends {
			b.WriteString(s.warningLabel() + " " + it.Message + "\n")
		}
	case *items.TodoList:
		if ch.Phase != items.Completed {
			h.plan(b, it)
		}
	case *items.Command:
		switch {
		case begins && it.Begun:
			fmt.Fprintf(b, "%s\n%s in %s\n", s.tag("exec"), s.bold(items.JoinCommand(it.Argv)), it.Cwd)
		case ends:
			h.commandEnd(b, it)
		}
	case *items.Patch:
		switch {
		case begins && it.Begun:
			b.WriteString(s.bold("apply patch") + "\n")
		case ends:
			h.patchEnd(b, it)
		}
	case *items.WebSearch:
		switch {
		case begins:
			b.WriteString(s.bold("web search:") + " \n")
		case ends:
			b.WriteString(s.bold("web search:") + " " + it.Query + "\n")
		}
	case *items.McpCall:
		name := s.cyan(it.Invocation.Server + "/" + it.Invocation.Tool)
		switch {
		case begins:
			b.WriteString(s.bold("mcp:") + " " + name + " " + s.dim("started") + "\n")
		case ends:
			status := s.green("completed")
			if !it.Result.IsSuccess() {
				status = s.red("failed")
			}
			b.WriteString(s.bold("mcp:") + " " + name + " " + s.dim("("+status+")") + "\n")
		}
	}
}

func (h *HumanWriter) commandEnd(b *strings.Builder, c *items.Command) {
	s := h.sty
	dur := formatElapsed(c.Duration)
	if *c.ExitCode == 0 && c.RawStatus != protocol.ExecDeclined {
		b.WriteString(s.green(" succeeded in "+dur+":") + "\n")
	} else {
		b.WriteString(s.red(" exited "+strconv.Itoa(*c.ExitCode)+" in "+dur+":") + "\n")
	}
	if c.AggregatedOutput != "" {
		b.WriteString(c.AggregatedOutput + "\n")
	}
}

func (h *HumanWriter) plan(b *strings.Builder, t *items.TodoList) {
	s := h.sty
	b.WriteString(s.bold("Plan update") + "\n")
	if t.Explanation != nil && *t.Explanation != "" {
		b.WriteString(s.dim(*t.Explanation) + "\n")
	}
	for _, step := range t.Steps {
		b.WriteString("  " + planMark(step.Status) + " " + step.Step + "\n")
	}
}

func (h *HumanWriter) header(b *strings.Builder, m protocol.SessionConfiguredEvent) {
	s := h.sty
	b.WriteString(h.o.Title + "\n--------\n")
	for _, e := range h.o.Summary {
		b.WriteString(s.bold(e.Key+":") + " " + e.Value + "\n")
	}
	b.WriteString(s.bold("session id:") + " " + m.SessionID + "\n--------\n")
	b.WriteString(s.cyan("user") + "\n" + h.o.Prompt + "\n")
}

func (h *HumanWriter) patchEnd(b *strings.Builder, m *items.Patch) {
	s := h.sty
	status := string(m.RawStatus)
	if status == "" {
		status = string(protocol.PatchCompleted)
		if !m.Success {
			status = string(protocol.PatchFailed)
		}
	}
	b.WriteString(s.bold("patch:") + " " + status + "\n")
	paths := make([]string, 0, len(m.Reported))
	for p := range m.Reported {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		b.WriteString(s.dim(p) + "\n")
	}
	if !m.Success && m.Stderr != "" {
		b.WriteString(s.dim(strings.TrimRight(m.Stderr, "\n")) + "\n")
	}
}

func (h *HumanWriter) turnEnded(m protocol.TurnCompleteEvent) error {
	s := h.sty
	var b strings.Builder
	// Codex repeats the error that ended the turn (task_complete carries it; an engine that
	// only sent the error event gets the same line).
	failure := h.turnError
	if m.Error != nil {
		failure = &m.Error.Message
	}
	h.turnError = nil
	if failure != nil {
		h.failed = true
		b.WriteString(s.errorLabel() + " " + *failure + "\n")
	}
	if h.usage != nil {
		b.WriteString(s.dim("tokens used") + "\n" + formatThousands(h.usage.BlendedTotal()) + "\n")
		h.subagentUsage(&b)
	}
	if _, err := io.WriteString(h.o.Stderr, b.String()); err != nil {
		return err
	}
	if m.LastAgentMessage != nil {
		msg := *m.LastAgentMessage
		h.lastMsg = &msg
		if h.o.FinalMessageToStdout {
			if _, err := io.WriteString(h.o.Stdout, msg+"\n"); err != nil {
				return err
			}
		}
	}
	return nil
}

func planMark(st protocol.PlanStatus) string {
	switch st {
	case protocol.PlanCompleted:
		return "✓"
	case protocol.PlanInProgress:
		return "→"
	}
	return "•"
}

// formatElapsed writes durations as Codex does: 324ms, 1.50s, 2m 05s.
func formatElapsed(d time.Duration) string {
	ms := d.Milliseconds()
	switch {
	case ms < 1000:
		return strconv.FormatInt(ms, 10) + "ms"
	case ms < 60_000:
		return strconv.FormatFloat(float64(ms)/1000, 'f', 2, 64) + "s"
	}
	return fmt.Sprintf("%dm %02ds", ms/60_000, (ms%60_000)/1000)
}

// subagentUsage adds each sub-agent's tokens and the total with them to the summary.
func (h *HumanWriter) subagentUsage(b *strings.Builder) {
	if h.o.SubagentUsage == nil || h.threadID == "" {
		return
	}
	each, sum := h.o.SubagentUsage(h.threadID)
	if len(each) == 0 {
		return
	}
	b.WriteString(h.sty.dim("tokens used by sub-agents") + "\n")
	for _, a := range each {
		fmt.Fprintf(b, "%s (%s) %s\n", a.Path, a.ThreadID, formatThousands(a.Usage.BlendedTotal()))
	}
	b.WriteString(h.sty.dim("tokens used with sub-agents") + "\n" + formatThousands(h.usage.BlendedTotal()+sum.BlendedTotal()) + "\n")
}

// formatThousands writes n with comma separators (1,234,554), as "tokens used" shows it.
func formatThousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// styler wraps text in the ANSI sequences Codex uses, or leaves it plain.
type styler struct{ on bool }

func (s styler) wrap(code, text string) string {
	if !s.on {
		return text
	}
	return code + text + "\x1b[0m"
}

func (s styler) bold(t string) string  { return s.wrap("\x1b[1m", t) }
func (s styler) dim(t string) string   { return s.wrap("\x1b[2m", t) }
func (s styler) cyan(t string) string  { return s.wrap("\x1b[36m", t) }
func (s styler) green(t string) string { return s.wrap("\x1b[32m", t) }
func (s styler) red(t string) string   { return s.wrap("\x1b[31m", t) }

// tag is the magenta italic section label ("codex", "exec").
func (s styler) tag(t string) string { return s.wrap("\x1b[35m", s.wrap("\x1b[3m", t)) }

func (s styler) errorLabel() string   { return s.wrap("\x1b[1m", s.wrap("\x1b[31m", "ERROR:")) }
func (s styler) warningLabel() string { return s.wrap("\x1b[1m", s.wrap("\x1b[33m", "warning:")) }
