package tui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/gocodex/gocodex/internal/items"
	"github.com/gocodex/gocodex/internal/lsp/diagreport"
	"github.com/gocodex/gocodex/protocol"
)

// cellKind says how a transcript cell is drawn.
type cellKind int

const (
	cellUser cellKind = iota
	cellAgent
	cellReasoning
	cellCommand
	cellPatch
	cellTool // an MCP tool call or a web search
	cellPlan
	cellWarning
	cellError
	cellInfo
	cellNote // a line of the UI's own, like the answer to an approval
	cellCard // a block of the UI's own, like /status, indented as a whole
	cellDiff // /diff's output, coloured as a diff
)

// cell is one entry of the conversation as the person sees it. Cells are plain text; the
// style comes from the kind at render time, so the transcript stays easy to test.
type cell struct {
	kind  cellKind
	title string
	body  string
	// open cells still receive deltas (a streaming message, a running command).
	open bool
	// failed marks a tool call that did not succeed.
	failed bool
}

// outputTailLines is how much of a command's output stays on screen: enough to see how it
// ended without letting one noisy command push the conversation away.
const outputTailLines = 5

// transcript folds protocol events into cells.
type transcript struct {
	cells []cell
	// agent and reasoning are the indexes of the cells streaming deltas, -1 when none.
	agent, reasoning int
	// calls maps a command or patch call id to its cell.
	calls map[string]int
	// rendered caches the drawing of closed cells (which never change again) for
	// renderedWidth, so a streaming delta redraws only the open cells.
	rendered      []string
	renderedWidth int
	// prefix is the joined drawing of the first prefixCells cells, all closed: the part of
	// a long conversation a delta never touches.
	prefix      []string // its lines
	prefixCells int
	// fold turns the events into item changes, which the cells draw.
	fold *items.Fold
	// subagents maps the sub-agents' thread ids to their paths, as the spawns name them.
	subagents map[string]string
}

func newTranscript() transcript {
	return transcript{agent: -1, reasoning: -1, calls: map[string]int{}, fold: items.NewFold(items.FoldOptions{NoStreamCopies: true})}
}

func (t *transcript) add(c cell) int {
	t.cells = append(t.cells, c)
	return len(t.cells) - 1
}

// closeStreams ends the streaming message and reasoning cells: whatever arrives next starts
// a new cell below them.
func (t *transcript) closeStreams() {
	for _, i := range []int{t.agent, t.reasoning} {
		if i >= 0 {
			t.cells[i].open = false
		}
	}
	t.agent, t.reasoning = -1, -1
}

// apply folds one event into the transcript; it reports whether anything visible changed.
// Item-shaped events come through the fold (see internal/items) as item changes; the others
// (turn ends, errors, hooks, notices of the engine's own) are drawn from the event.
func (t *transcript) apply(msg protocol.EventMsg) bool {
	changed := false
	for _, ch := range t.fold.Apply(msg) {
		if t.item(ch) {
			changed = true
		}
	}
	switch m := msg.(type) {
	case protocol.StreamErrorEvent:
		t.add(cell{kind: cellWarning, body: m.Message})
	case protocol.ErrorEvent:
		t.closeStreams()
		t.add(cell{kind: cellError, body: m.Message})
	case protocol.DeprecationNoticeEvent:
		t.add(cell{kind: cellWarning, body: m.Summary})
	case protocol.BackgroundEventEvent:
		t.add(cell{kind: cellInfo, body: m.Message})
	case protocol.McpListToolsResponseEvent:
		t.add(cell{kind: cellCard, body: mcpToolsText(m)})
	case protocol.ContextCompactedEvent:
		t.add(cell{kind: cellInfo, body: "Context compacted"})
	case protocol.TurnCompleteEvent:
		t.closeStreams()
		if m.Error != nil {
			t.add(cell{kind: cellError, body: m.Error.Message})
		}
	case protocol.TurnAbortedEvent:
		t.closeStreams()
		t.abortOpenCalls()
		if m.Reason == protocol.AbortInterrupted {
			t.add(cell{kind: cellError, body: "Conversation interrupted - tell the model what to do differently."})
		}
	default:
		return changed
	}
	return true
}

// item draws one item change; it reports whether anything visible changed. A call cut short
// by its turn is left to the turn's own event (an interrupt marks it; a completed turn leaves
// it as it is).
func (t *transcript) item(ch items.Change) bool {
	if ch.CutShort {
		return false
	}
	begins := ch.Phase == items.Started || (ch.Phase == items.Updated && ch.Delta.Kind == items.DeltaBegun)
	ends := ch.Phase == items.Completed
	switch it := ch.Body.(type) {
	case *items.AgentMessage:
		return t.agentMessage(ch, it)
	case *items.Reasoning:
		return t.reasoningPart(ch)
	case *items.Command:
		switch {
		case begins && it.Begun:
			t.closeStreams()
			t.calls[ch.ID] = t.add(cell{kind: cellCommand, title: "Running " + commandText(it.Argv), open: true})
		case ch.Phase == items.Updated && ch.Delta.Kind == items.DeltaOutput:
			i, ok := t.calls[ch.ID]
			if !ok {
				return false
			}
			t.cells[i].body += string(ch.Delta.Chunk)
		case ends:
			t.endCommand(ch.ID, it)
		default:
			return false
		}
	case *items.Patch:
		switch {
		case begins && it.Begun:
			t.closeStreams()
			t.calls[ch.ID] = t.add(cell{kind: cellPatch, title: "Applying patch", body: patchText(it.Changes), open: true})
		case ends:
			t.endPatch(ch.ID, it)
		default:
			return false
		}
	case *items.McpCall:
		switch {
		case begins:
			t.closeStreams()
			t.calls[ch.ID] = t.add(cell{kind: cellTool, title: "Calling " + invocationText(it.Invocation), open: true})
		case ends:
			t.endMcp(ch.ID, it)
		}
	case *items.HookRun:
		if ends {
			t.endHook(ch.ID, it)
		} else {
			t.startHook(ch.ID, it)
		}
	case *items.WebSearch:
		switch {
		case begins:
			t.closeStreams()
			t.calls[ch.ID] = t.add(cell{kind: cellTool, title: "Searching the web", open: true})
		case ends:
			i, ok := t.calls[ch.ID]
			if !ok {
				i = t.add(cell{kind: cellTool})
			}
			delete(t.calls, ch.ID)
			t.cells[i].open, t.cells[i].title = false, "Searched "+it.Query
		}
	default:
		return t.mark(ch)
	}
	return true
}

// mark draws the items that are one cell each: an image view, a plan, a warning, a proposed
// plan, a review's start and end.
func (t *transcript) mark(ch items.Change) bool {
	if t.markAgents(ch) { // transcript_agents.go
		return true
	}
	switch it := ch.Body.(type) {
	case *items.ImageView:
		if ch.Phase == items.Completed {
			t.add(cell{kind: cellInfo, body: "Viewed image " + it.Path})
			return true
		}
	case *items.TodoList:
		if ch.Phase != items.Completed {
			t.closeStreams()
			t.add(cell{kind: cellPlan, title: "Updated Plan", body: planText(it)})
			return true
		}
	case *items.Notice:
		if ch.Phase == items.Completed {
			t.add(cell{kind: cellWarning, body: it.Message})
			return true
		}
	case *items.ProposedPlan:
		if ch.Phase == items.Completed {
			t.add(cell{kind: cellPlan, title: "Proposed Plan", body: strings.TrimRight(it.Text, "\n")})
			return true
		}
	case *items.ReviewMode:
		if ch.Phase != items.Started {
			return false
		}
		t.closeStreams()
		if it.Exited {
			t.add(cell{kind: cellInfo, body: "<< Code review finished >>"})
		} else {
			t.add(cell{kind: cellInfo, body: ">> Code review started: " + it.Hint + " <<"})
		}
		return true
	}
	return false
}

// agentMessage streams the agent's answer into its cell; the complete message is
// authoritative: it replaces what the deltas built.
func (t *transcript) agentMessage(ch items.Change, it *items.AgentMessage) bool {
	switch {
	case ch.Phase == items.Updated && ch.Delta.Kind == items.DeltaText:
		if t.agent < 0 {
			t.closeStreams()
			t.agent = t.add(cell{kind: cellAgent, open: true})
		}
		t.cells[t.agent].body += ch.Delta.Text
	case ch.Phase == items.Completed:
		if t.agent >= 0 {
			t.cells[t.agent].body = it.Text
		} else {
			t.add(cell{kind: cellAgent, body: it.Text})
		}
		t.closeStreams()
	default:
		return false
	}
	return true
}

// reasoningPart streams a reasoning summary part into its cell; a whole part replaces it and
// a section break closes it.
func (t *transcript) reasoningPart(ch items.Change) bool {
	if ch.Phase != items.Updated {
		return false
	}
	switch ch.Delta.Kind {
	case items.DeltaSummary:
		if t.reasoning < 0 {
			t.reasoning = t.add(cell{kind: cellReasoning, open: true})
		}
		t.cells[t.reasoning].body += ch.Delta.Text
	case items.DeltaSummaryDone:
		if t.reasoning >= 0 {
			t.cells[t.reasoning].body = ch.Delta.Text
			t.cells[t.reasoning].open = false
			t.reasoning = -1
		} else {
			t.add(cell{kind: cellReasoning, body: ch.Delta.Text})
		}
	case items.DeltaSummaryPart:
		if t.reasoning >= 0 {
			t.cells[t.reasoning].open = false
			t.reasoning = -1
		}
	default:
		return false
	}
	return true
}

func (t *transcript) endCommand(id string, m *items.Command) {
	i, ok := t.calls[id]
	if !ok {
		i = t.add(cell{kind: cellCommand})
	}
	delete(t.calls, id)
	c := &t.cells[i]
	c.open = false
	cmd := commandText(m.Argv)
	switch {
	case m.RawStatus == protocol.ExecDeclined:
		c.title, c.failed = "Declined "+cmd, true
	default:
		c.title = fmt.Sprintf("Ran %s (exit %d)", cmd, *m.ExitCode)
		c.failed = *m.ExitCode != 0 || m.RawStatus == protocol.ExecFailed
	}
	out := m.AggregatedOutput
	if out == "" {
		out = m.Stdout + m.Stderr
	}
	if out == "" {
		out = c.body // the deltas, when the end carries no copy
	}
	c.body = out
}

func (t *transcript) endPatch(id string, m *items.Patch) {
	i, ok := t.calls[id]
	if !ok {
		i = t.add(cell{kind: cellPatch, body: patchText(m.Reported)})
	}
	delete(t.calls, id)
	c := &t.cells[i]
	c.open = false
	switch {
	case m.RawStatus == protocol.PatchDeclined:
		c.title, c.failed = "Patch declined", true
	case m.Success:
		c.title = "Applied patch"
		// The language servers' diagnostics for the patched files (internal/lsp) follow its
		// output; the cell counts them.
		if errors, warnings, ok := diagreport.CountIn(m.Stdout); ok {
			c.title += fmt.Sprintf(" (%s)", diagnosticCount(errors, warnings))
		}
	default:
		c.title, c.failed = "Patch failed", true
		if msg := strings.TrimSpace(m.Stderr); msg != "" {
			c.body += "\n" + msg
		}
	}
	if len(m.Reported) > 0 && c.body == "" {
		c.body = patchText(m.Reported)
	}
}

// abortOpenCalls marks the commands and patches an interrupt cut short.
func (t *transcript) abortOpenCalls() {
	for id, i := range t.calls {
		t.cells[i].open, t.cells[i].failed = false, true
		t.cells[i].title += " (interrupted)"
		delete(t.calls, id)
	}
}

// commandText shows a command the way a person would type it: the script of a
// `bash -lc SCRIPT` wrapper, otherwise the argv joined with shell quoting where needed.
func commandText(argv []string) string {
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") && strings.HasSuffix(argv[0], "sh") {
		return argv[2]
	}
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"$`\\|&;<>()*?") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}

// changeList names the files of a patch, one a line, sorted for a stable view.
func changeList(changes map[string]protocol.FileChange) string {
	paths := make([]string, 0, len(changes))
	for p := range changes {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	for i, p := range paths {
		if i > 0 {
			b.WriteByte('\n')
		}
		ch := changes[p]
		switch ch.Kind {
		case protocol.FileAdd:
			b.WriteString("A " + p)
		case protocol.FileDelete:
			b.WriteString("D " + p)
		default:
			b.WriteString("M " + p)
			if ch.MovePath != nil {
				b.WriteString(" → " + *ch.MovePath)
			}
		}
	}
	return b.String()
}

// maxPatchLines bounds a patch drawn in the transcript.
const maxPatchLines = 60

// patchText is a patch's diff, cut to maxPatchLines.
func patchText(changes map[string]protocol.FileChange) string {
	lines := diffLines(changes)
	if len(lines) > maxPatchLines {
		more := len(lines) - maxPatchLines
		lines = append(lines[:maxPatchLines], fmt.Sprintf("… +%d lines", more))
	}
	return strings.Join(lines, "\n")
}

func planText(m *items.TodoList) string {
	var lines []string
	if m.Explanation != nil && strings.TrimSpace(*m.Explanation) != "" {
		lines = append(lines, strings.TrimSpace(*m.Explanation))
	}
	for _, it := range m.Steps {
		mark := "□"
		switch it.Status {
		case protocol.PlanCompleted:
			mark = "✔"
		case protocol.PlanInProgress:
			mark = "→"
		}
		lines = append(lines, mark+" "+it.Step)
	}
	return strings.Join(lines, "\n")
}

// styles are the few looks of the transcript.
type styles struct {
	user, agent, dim, ok, bad, warn, bold lipgloss.Style
	added, removed                        lipgloss.Style
	md                                    mdStyles
}

func newStyles() styles {
	return styles{
		user:    lipgloss.NewStyle().Foreground(lipgloss.Cyan).Bold(true),
		agent:   lipgloss.NewStyle(),
		dim:     lipgloss.NewStyle().Faint(true),
		ok:      lipgloss.NewStyle().Foreground(lipgloss.Green).Bold(true),
		bad:     lipgloss.NewStyle().Foreground(lipgloss.Red).Bold(true),
		warn:    lipgloss.NewStyle().Foreground(lipgloss.Yellow),
		bold:    lipgloss.NewStyle().Bold(true),
		added:   lipgloss.NewStyle().Foreground(lipgloss.Green),
		removed: lipgloss.NewStyle().Foreground(lipgloss.Red),
		md:      newMDStyles(),
	}
}

// render draws the transcript for a terminal width; cells are separated by a blank line.
func (t *transcript) render(width int, st styles) string {
	head, tail := t.renderSplit(width, st)
	switch {
	case len(head) == 0:
		return tail
	case tail == "":
		return strings.Join(head, "\n")
	}
	return strings.Join(head, "\n") + "\n" + tail
}

// renderSplit draws the transcript as the lines of its finished prefix (the first cells,
// all closed, cached) and the rest; the lines of tail follow those of head.
func (t *transcript) renderSplit(width int, st styles) (head []string, tail string) {
	if width < 10 {
		width = 10
	}
	if width != t.renderedWidth {
		t.rendered, t.renderedWidth = nil, width
		t.prefix, t.prefixCells = nil, 0
	}
	t.extendPrefix(width, st)
	var b strings.Builder
	for i := t.prefixCells; i < len(t.cells); i++ {
		c := t.cells[i]
		if i > t.prefixCells {
			b.WriteString("\n\n")
		} else if i > 0 {
			b.WriteString("\n") // the blank line after the prefix
		}
		if i < len(t.rendered) && t.rendered[i] != "" {
			b.WriteString(t.rendered[i])
			continue
		}
		r := renderCell(c, width, st)
		if !c.open {
			for len(t.rendered) <= i {
				t.rendered = append(t.rendered, "")
			}
			t.rendered[i] = r
		}
		b.WriteString(r)
	}
	return t.prefix, b.String()
}

// extendPrefix adds the closed cells that follow the prefix to it: appended lines, so a
// long conversation is never copied again.
func (t *transcript) extendPrefix(width int, st styles) {
	for t.prefixCells < len(t.cells) && !t.cells[t.prefixCells].open {
		if t.prefixCells > 0 {
			t.prefix = append(t.prefix, "")
		}
		t.prefix = append(t.prefix, strings.Split(renderCell(t.cells[t.prefixCells], width, st), "\n")...)
		t.prefixCells++
	}
}

func renderCell(c cell, width int, st styles) string {
	wrap := func(s string, indent int) string {
		return lipgloss.Wrap(s, width-indent, "")
	}
	switch c.kind {
	case cellUser:
		return prefixLines(wrap(c.body, 2), st.user.Render("› "), "  ")
	case cellAgent:
		if st.md.raw {
			return wrap(strings.TrimRight(c.body, "\n"), 0)
		}
		return prefixLines(renderMarkdown(c.body, width-2, st.md), "• ", "  ")
	case cellReasoning:
		return st.dim.Render(prefixLines(wrap(c.body, 2), "• ", "  "))
	case cellCommand, cellPatch, cellTool:
		mark := st.dim.Render("• ")
		switch {
		case c.open:
		case !c.failed:
			mark = st.ok.Render("✔ ")
		default:
			mark = st.bad.Render("✗ ")
		}
		head := mark + st.bold.Render(wrap(c.title, 2))
		// Tabs would move the terminal's cursor past what the layout measured.
		body := strings.ReplaceAll(strings.TrimRight(c.body, "\n"), "\t", "    ")
		if c.kind == cellPatch && body != "" {
			lines := strings.Split(wrap(body, 4), "\n")
			return head + "\n" + prefixLines(renderDiff(lines, st, width-4), "  └ ", "    ")
		}
		body = tailLines(body, outputTailLines)
		if body == "" {
			return head
		}
		return head + "\n" + st.dim.Render(prefixLines(wrap(body, 4), "  └ ", "    "))
	case cellPlan:
		return st.bold.Render("• "+c.title) + "\n" + prefixLines(wrap(c.body, 4), "  └ ", "    ")
	case cellWarning:
		return st.warn.Render(prefixLines(wrap(c.body, 2), "⚠ ", "  "))
	case cellError:
		return st.bad.Render(prefixLines(wrap(c.body, 2), "■ ", "  "))
	case cellNote:
		return prefixLines(wrap(c.body, 2), "", "  ")
	case cellDiff:
		lines := strings.Split(strings.ReplaceAll(c.body, "\t", "    "), "\n")
		return prefixLines(renderDiff(lines, st, width-2), "  ", "  ")
	case cellCard:
		return prefixLines(wrap(c.body, 2), "  ", "  ")
	default:
		return st.dim.Render(prefixLines(wrap(c.body, 2), "• ", "  "))
	}
}

// prefixLines puts first before the first line and rest before every other one.
func prefixLines(s, first, rest string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		if i == 0 {
			lines[i] = first + lines[i]
		} else {
			lines[i] = rest + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

// tailLines keeps the last n lines of s, saying how many were left out.
func tailLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	cut := len(lines) - n
	return fmt.Sprintf("… +%d lines\n", cut) + strings.Join(lines[cut:], "\n")
}

// diagnosticCount says "1 error, 2 warnings" (or just one of them).
func diagnosticCount(errors, warnings int) string {
	plural := func(n int, noun string) string {
		if n == 1 {
			return "1 " + noun
		}
		return fmt.Sprintf("%d %ss", n, noun)
	}
	switch {
	case warnings == 0:
		return plural(errors, "error")
	case errors == 0:
		return plural(warnings, "warning")
	}
	return plural(errors, "error") + ", " + plural(warnings, "warning")
}
