package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/safegit"
	"github.com/gocodex/gocodex/protocol"
)

// diffTimeout bounds the git commands of /diff.
const diffTimeout = 10 * time.Second

// maxDiffLines keeps a huge diff from burying the conversation.
const maxDiffLines = 400

// showStatus is /status: model, provider, account, place, permissions, AGENTS.md files,
// thread, context left and token usage, laid out as Codex's /status card.
func (m *Model) showStatus(typed string) {
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: typed})
	m.tr.add(cell{kind: cellCard, body: m.statusText()})
	m.refresh()
}

func (m *Model) statusText() string {
	h := m.header
	var b strings.Builder
	row := func(k, v string) { fmt.Fprintf(&b, "%-21s%s\n", k+":", v) }
	model := h.Model
	if h.Effort != "" {
		model += " (reasoning " + h.Effort + ")"
	}
	row("Model", model)
	if h.Provider != "" {
		row("Model provider", h.Provider)
	}
	row("Directory", h.Cwd)
	row("Permissions", permissionsText(h.Approval, h.Sandbox))
	if h.Account != "" {
		row("Account", h.Account)
	}
	agents := "<none>"
	if len(m.agentsFiles) > 0 {
		agents = strings.Join(m.agentsFiles, ", ")
	}
	row("Agents.md", agents)
	mode := "Default"
	if m.planMode {
		mode = "Plan"
	}
	row("Collaboration mode", mode)
	if m.threadID != "" {
		row("Session", m.threadID)
	}
	if m.usage != nil && m.usage.ModelContextWindow != nil {
		w := *m.usage.ModelContextWindow
		row("Context window", fmt.Sprintf("%d%% left (%s used / %s)", percentLeft(m.usage.LastTokenUsage.TotalTokens, w),
			grouped(m.usage.LastTokenUsage.TotalTokens), grouped(w)))
	}
	var u protocol.TokenUsage
	if m.usage != nil {
		u = m.usage.TotalTokenUsage
	}
	row("Token usage", fmt.Sprintf("%s total  (%s input + %s output)", grouped(u.TotalTokens), grouped(u.InputTokens), grouped(u.OutputTokens)))
	return strings.TrimRight(b.String(), "\n")
}

// permissionsText names the preset the approval policy and sandbox make, with both spelled out.
func permissionsText(approval, sandbox string) string {
	name := "Custom"
	for _, p := range permissionPresets() {
		if p.approval.String() == approval && string(p.sandbox) == sandbox {
			name = p.label
		}
	}
	return fmt.Sprintf("%s (%s, %s)", name, approval, sandbox)
}

// showDiff is /diff: the working tree's changes against HEAD, untracked files included.
func (m *Model) showDiff(typed string) {
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: typed})
	defer m.refresh()
	ctx, cancel := context.WithTimeout(context.Background(), diffTimeout)
	defer cancel()
	diff, untracked, err := safegit.New(safegit.Options{Dir: m.header.Cwd}).WorkTreeDiff(ctx)
	if errors.Is(err, safegit.ErrNotWorkTree) {
		m.tr.add(cell{kind: cellError, body: "/diff: not inside a git work tree: " + m.header.Cwd})
		return
	}
	if err != nil {
		m.tr.add(cell{kind: cellError, body: "/diff: " + err.Error()})
		return
	}
	var b strings.Builder
	b.WriteString(strings.TrimRight(diff, "\n"))
	for _, f := range untracked {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("new file (untracked): " + f)
	}
	text := b.String()
	if text == "" {
		text = "No changes."
	}
	if lines := strings.Split(text, "\n"); len(lines) > maxDiffLines {
		text = strings.Join(lines[:maxDiffLines], "\n") + fmt.Sprintf("\n… %d more lines", len(lines)-maxDiffLines)
	}
	m.tr.add(cell{kind: cellDiff, body: text})
}
