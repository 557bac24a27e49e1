package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// statusLineItems are the items Codex 0.171's /statusline offers, in its order.
var statusLineItems = []itemChoice{
	{id: "model-with-reasoning", desc: "Current model name with reasoning level"},
	{id: "current-dir", desc: "Current working directory"},
	{id: "thread-name", desc: "Current thread name (omitted when unnamed)"},
	{id: "model", desc: "Current model name"},
	{id: "reasoning", desc: "Current reasoning level"},
	{id: "project-name", desc: "Project name (omitted when unavailable)"},
	{id: "hostname", desc: "Current machine hostname (omitted when unavailable)"},
	{id: "git-branch", desc: "Current Git branch (omitted when unavailable)"},
	{id: "pull-request-number", desc: "Open pull request number for the current branch (omitted when unavailable)"},
	{id: "branch-changes", desc: "Committed branch changes against the default branch (omitted when unavailable)"},
	{id: "run-state", desc: "Compact session run-state text (Ready, Working, Thinking)"},
	{id: "permissions", desc: "Active permission profile or sandbox mode"},
	{id: "approval-mode", desc: "Active command approval mode"},
	{id: "context-remaining", desc: "Percentage of context window remaining (omitted when unknown)"},
	{id: "context-used", desc: "Percentage of context window used (omitted when unknown)"},
	{id: "five-hour-limit", desc: "Remaining usage on the primary usage limit (omitted when unavailable)"},
	{id: "weekly-limit", desc: "Remaining usage on the secondary usage limit (omitted when unavailable)"},
	{id: "codex-version", desc: "Codex application version"},
	{id: "context-window-size", desc: "Total context window size in tokens (omitted when unknown)"},
	{id: "used-tokens", desc: "Total tokens used in session (omitted when zero)"},
	{id: "total-input-tokens", desc: "Total input tokens used in session"},
	{id: "total-output-tokens", desc: "Total output tokens used in session"},
	{id: "thread-credits", desc: "Estimated current-thread credits (Enterprise workspaces only; omitted when unavailable)"},
	{id: "estimated-thread-cost", desc: "Estimated current-thread cost in USD (Enterprise workspaces only; omitted when unavailable)"},
	{id: "thread-id", desc: "Current thread identifier (omitted until thread starts)"},
	{id: "fast-mode", desc: "Effective processing tier for the current model"},
	{id: "daybreak", desc: "Whether Daybreak is enabled for this thread"},
	{id: "raw-output", desc: "Whether raw scrollback mode is active"},
	{id: "thread-title", desc: "Current thread title, or thread identifier when unnamed"},
	{id: "workspace-headline", desc: "Workspace notification headline (Enterprise workspaces only; omitted when unavailable)"},
	{id: "task-progress", desc: "Latest task progress from update_plan (omitted until available)"},
	{id: "profile", desc: "Config profile selected with --profile (omitted when unset)"},
	{id: "provider", desc: "Model provider for the active thread"},
}

// defaultStatusLine is what Codex's picker starts from when tui.status_line is unset.
var defaultStatusLine = []string{"model-with-reasoning", "current-dir", "thread-name"}

// openStatusLinePicker is /statusline: choose and order the status line's items; enter
// saves them in config.toml (tui.status_line, tui.status_line_use_colors) as Codex does.
func (m *Model) openStatusLinePicker(_, _ string) {
	enabled := m.ui.statusLine
	if enabled == nil {
		enabled = defaultStatusLine
	}
	p := newItemsPicker(statusLineItems, enabled)
	p.title, p.subtitle = "Configure Status Line", "Select which items to display in the status line."
	p.switchLabel, p.switchDesc, p.switchOn = "Use theme colors", "Apply colors from the active /theme", m.ui.colors || m.ui.statusLine == nil
	p.preview = func(m *Model, ids []string, _ bool) string { return m.itemsLine(ids, " · ", true) }
	p.save = func(m *Model, ids []string, colors bool) {
		if f := m.ui.host.SaveStatusLine; f != nil {
			if err := f(ids, colors); err != nil {
				m.tr.add(cell{kind: cellError, body: "/statusline: " + err.Error()})
				m.refresh()
				return
			}
		}
		m.ui.statusLine, m.ui.colors = ids, colors
		m.refresh()
	}
	m.ui.items = p
	m.refresh()
}

// itemsLine draws the items that have a value, joined by sep; with placeholders, the ones
// without a value show what they would (the picker's preview).
func (m *Model) itemsLine(ids []string, sep string, placeholders bool) string {
	var parts []string
	for _, id := range ids {
		v := m.itemValue(id)
		if v == "" && placeholders {
			v = itemPlaceholder(id)
		}
		if v != "" {
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, sep)
}

// itemPlaceholder is what the preview shows for an item without a value now.
func itemPlaceholder(id string) string {
	switch id {
	case "thread-name":
		return "thread name"
	case "git-branch":
		return "branch"
	}
	return ""
}

// itemValue is one status line or title item now; "" omits it.
func (m *Model) itemValue(id string) string {
	h := m.header
	switch id {
	case "model-with-reasoning":
		effort := h.Effort
		if effort == "" {
			effort = "default"
		}
		return strings.TrimSpace(h.Model + " " + effort + m.fastSuffix())
	case "model":
		return h.Model
	case "reasoning":
		if h.Effort == "" {
			return "default"
		}
		return h.Effort
	case "current-dir":
		return tildeHome(h.Cwd)
	case "project-name":
		return filepath.Base(h.Cwd)
	case "hostname":
		return m.ui.hostname
	case "git-branch":
		return m.ui.gitBranch
	case "run-state":
		if m.running {
			return "Working"
		}
		return "Ready"
	case "permissions":
		return h.Sandbox
	case "approval-mode":
		return h.Approval
	case "context-remaining":
		if pct, ok := m.contextLeft(); ok {
			return fmt.Sprintf("%d%% left", pct)
		}
	case "context-used":
		if pct, ok := m.contextLeft(); ok {
			return fmt.Sprintf("%d%% used", 100-pct)
		}
	case "context-window-size":
		if m.usage != nil && m.usage.ModelContextWindow != nil {
			return grouped(*m.usage.ModelContextWindow) + " window"
		}
	case "codex-version":
		return h.Version
	case "used-tokens":
		if m.usage != nil && m.usage.TotalTokenUsage.TotalTokens > 0 {
			return grouped(m.usage.TotalTokenUsage.TotalTokens) + " used"
		}
	case "total-input-tokens":
		if m.usage != nil {
			return grouped(m.usage.TotalTokenUsage.InputTokens) + " in"
		}
		return "0 in"
	case "total-output-tokens":
		if m.usage != nil {
			return grouped(m.usage.TotalTokenUsage.OutputTokens) + " out"
		}
		return "0 out"
	case "thread-id", "thread-title":
		return m.threadID
	case "fast-mode":
		if m.ui.serviceTier == "fast" {
			return "fast"
		}
		return "standard"
	case "provider":
		return h.Provider
	case "app-name":
		return "gocodex"
	}
	return ""
}

// fastSuffix marks the model with " fast" while priority processing is on, as Codex does.
func (m *Model) fastSuffix() string {
	if m.ui.serviceTier == "fast" {
		return " fast"
	}
	return ""
}

// tildeHome writes a path under the home folder as ~/…, as Codex's status line does.
func tildeHome(path string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return path
	}
	if path == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(path, home+string(filepath.Separator)); ok {
		return "~" + string(filepath.Separator) + rest
	}
	return path
}

// refreshGitBranch reads the work tree's branch from .git/HEAD (a linked worktree's
// gitdir followed), and the host name; both are drawn from memory afterwards.
func (m *Model) refreshGitBranch() {
	if m.ui.hostname == "" {
		m.ui.hostname, _ = os.Hostname()
	}
	m.ui.gitBranch = gitBranchOf(m.header.Cwd)
}

func gitBranchOf(dir string) string {
	for d := dir; d != "" && d != filepath.Dir(d); d = filepath.Dir(d) {
		dotgit := filepath.Join(d, ".git")
		st, err := os.Stat(dotgit)
		if err != nil {
			continue
		}
		gitDir := dotgit
		if !st.IsDir() {
			data, err := os.ReadFile(dotgit)
			if err != nil {
				return ""
			}
			rest, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
			if !ok {
				return ""
			}
			if !filepath.IsAbs(rest) {
				rest = filepath.Join(d, rest)
			}
			gitDir = rest
		}
		head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
		if err != nil {
			return ""
		}
		ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: refs/heads/")
		if !ok {
			return "" // detached
		}
		return ref
	}
	return ""
}
