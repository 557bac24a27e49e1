package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/protocol"
)

// View draws header, transcript, status line and the bottom pane (the composer, or the
// approval modal while a request waits).
func (m *Model) View() tea.View {
	if m.pager != nil {
		return m.pagerView()
	}
	if m.inline {
		v := tea.NewView(m.liveView())
		v.WindowTitle = m.windowTitle()
		return v
	}
	parts := []string{m.headerView(), m.vp.view(), m.statusView(), m.bottomView()}
	v := tea.NewView(strings.Join(parts, "\n"))
	v.AltScreen = true
	v.WindowTitle = m.windowTitle()
	return v
}

// chromeHeight is every line that is not the transcript.
func (m *Model) chromeHeight() int {
	if len(m.approvals) == 0 && m.question == nil && m.picker == nil && m.ui.items == nil && len(m.popup.items) == 0 && len(m.mentions.items) == 0 && len(m.steers) == 0 && len(m.queued) == 0 {
		return headerHeight + 1 + inputHeight + 3 // the composer, its border and the footer
	}
	return headerHeight + 1 + lipgloss.Height(m.bottomView())
}

// headerHeight is the header's six lines and its border.
const headerHeight = 8

func (m *Model) headerView() string {
	h := m.header
	title := ">_ gocodex"
	if h.Version != "" {
		title += " (v" + strings.TrimPrefix(h.Version, "v") + ")"
	}
	lines := []string{
		m.st.bold.Render(title),
		"",
		m.st.dim.Render("model:     ") + h.Model,
		m.st.dim.Render("directory: ") + h.Cwd,
		m.st.dim.Render("approval:  ") + h.Approval,
		m.st.dim.Render("sandbox:   ") + h.Sandbox,
	}
	box := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1)
	inner := max(10, m.width-4)
	for i, l := range lines {
		lines[i] = truncate(l, inner)
	}
	return box.Render(strings.Join(lines, "\n"))
}

func (m *Model) statusView() string {
	var s string
	switch {
	case m.shuttingDown:
		s = "Shutting down…"
	case m.quitArmed:
		s = "Press Ctrl+C again to quit"
	case m.running:
		s = "• Working (" + elapsed(m.now().Sub(m.runStart)) + " • esc to interrupt)"
		if n := len(m.queued); n > 0 {
			s += fmt.Sprintf(" · %d queued", n)
		}
	case m.usage != nil:
		s = usageText(m.usage.TotalTokenUsage)
	}
	return m.st.dim.Render(truncate(s, m.width))
}

// usageText is the token summary of the status line and of the exit, with Codex's
// thousands separators.
func usageText(u protocol.TokenUsage) string {
	s := "Token usage: total=" + grouped(u.TotalTokens) + " input=" + grouped(u.InputTokens-u.CachedInputTokens)
	if u.CachedInputTokens > 0 {
		s += " (+ " + grouped(u.CachedInputTokens) + " cached)"
	}
	s += " output=" + grouped(u.OutputTokens)
	if u.ReasoningOutputTokens > 0 {
		s += " (reasoning " + grouped(u.ReasoningOutputTokens) + ")"
	}
	return s
}

// grouped writes n with a comma every three digits.
func grouped(n int64) string {
	if n < 0 {
		return "-" + grouped(-n)
	}
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func (m *Model) bottomView() string {
	if m.question != nil {
		return m.questionView()
	}
	if len(m.approvals) > 0 {
		return m.approvalView(m.approvals[0])
	}
	if m.picker != nil {
		return m.pickerView()
	}
	if m.ui.items != nil {
		return m.itemsPickerView()
	}
	box := lipgloss.NewStyle().Border(lipgloss.RoundedBorder())
	out := box.Render(m.input.View()) + "\n" + m.footerView()
	if pending := m.pendingView(); pending != "" {
		out = pending + "\n" + out
	}
	switch {
	case len(m.popup.items) > 0:
		out = m.popupView() + "\n" + out
	case len(m.mentions.items) > 0:
		out = m.mentionView() + "\n" + out
	}
	return out
}

// footerView is the status line under the composer, as Codex's: model and effort, context
// left, directory; the key hint when there is room.
func (m *Model) footerView() string {
	parts := []string{strings.TrimSpace(m.header.Model + " " + m.header.Effort + m.fastSuffix())}
	if pct, ok := m.contextLeft(); ok {
		parts = append(parts, fmt.Sprintf("%d%% context left", pct))
	}
	parts = append(parts, m.header.Cwd)
	left := strings.Join(parts, " · ")
	if m.ui.statusLine != nil { // chosen with /statusline (tui.status_line)
		left = m.itemsLine(m.ui.statusLine, " · ", false)
	}
	hint := "/ for commands · esc interrupt · ctrl+c quit"
	if m.running && strings.TrimSpace(m.input.Value()) != "" {
		hint = "tab to queue message"
	}
	if m.vim.on {
		hint = m.vim.label()
	}
	if gap := m.width - lipgloss.Width(left) - lipgloss.Width(hint) - 1; gap >= 2 {
		left += strings.Repeat(" ", gap) + hint
	}
	return m.st.dim.Render(truncate(left, m.width))
}

// contextBaselineTokens is what Codex takes as always in the window (instructions, tools):
// the percentage is of the rest, so a fresh thread shows 100%.
const contextBaselineTokens = 12000

// contextLeft is the percentage of the model's window the next turn still has.
func (m *Model) contextLeft() (int, bool) {
	if m.usage == nil || m.usage.ModelContextWindow == nil {
		return 0, false
	}
	return percentLeft(m.usage.LastTokenUsage.TotalTokens, *m.usage.ModelContextWindow), true
}

func percentLeft(used, window int64) int {
	if window <= contextBaselineTokens {
		return 0
	}
	effective := window - contextBaselineTokens
	used = max(0, used-contextBaselineTokens)
	left := max(0, effective-used)
	return int(min(100, left*100/effective))
}

// maxModalLines bounds the command listing inside the approval modal so the transcript
// keeps room; a patch's diff gets half the screen.
const maxModalLines = 10

func (m *Model) approvalView(a approval) string {
	var title string
	var body []string
	var reason *string
	inner := max(10, m.width-4)
	if a.exec != nil {
		title = "Would you like to run the following command?"
		body = strings.Split(commandText(a.exec.Command), "\n")
		for i := range body {
			body[i] = "$ " + body[i]
		}
		if len(body) > maxModalLines {
			more := len(body) - maxModalLines
			body = append(body[:maxModalLines], fmt.Sprintf("… +%d more", more))
		}
		if a.exec.Cwd != "" {
			body = append(body, m.st.dim.Render("in "+a.exec.Cwd))
		}
		reason = a.exec.Reason
	} else {
		// The diff comes first: what would change is what the person decides on.
		title = "Would you like to make the following edits?"
		lines := diffLines(a.patch.Changes)
		limit := max(maxModalLines, m.height/2-8)
		if len(lines) > limit {
			more := len(lines) - limit
			lines = append(lines[:limit], fmt.Sprintf("… +%d lines", more))
		}
		body = strings.Split(renderDiff(lines, m.st, inner), "\n")
		reason = a.patch.Reason
		if a.patch.GrantRoot != nil {
			body = append(body, m.st.dim.Render("and allow writes under "+*a.patch.GrantRoot+" this session"))
		}
	}
	lines := []string{m.st.bold.Render(title)}
	if reason != nil && *reason != "" {
		lines = append(lines, "Reason: "+*reason)
	}
	lines = append(lines, "")
	lines = append(lines, body...)
	lines = append(lines, "")
	for i, c := range approvalChoices(a) {
		row := fmt.Sprintf("%d. %s (%s)", i+1, c.label, c.key)
		if i == m.approvalSel {
			row = m.st.bold.Render("› " + row)
		} else {
			row = "  " + row
		}
		lines = append(lines, row)
	}
	if n := len(m.approvals) - 1; n > 0 {
		lines = append(lines, m.st.dim.Render(fmt.Sprintf("(%d more waiting)", n)))
	}
	for i, l := range lines {
		lines[i] = truncate(l, inner)
	}
	box := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(lipgloss.Yellow).Padding(0, 1).Width(max(20, m.width))
	return box.Render(strings.Join(lines, "\n"))
}

// truncate cuts a styled line to width cells.
func truncate(s string, width int) string {
	if lipgloss.Width(s) <= width {
		return s
	}
	return lipgloss.NewStyle().MaxWidth(width).Render(s)
}
