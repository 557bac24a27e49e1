package tui

import "strings"

// terminalTitleItems are the items Codex 0.171's /title offers, in its order.
var terminalTitleItems = []itemChoice{
	{id: "activity", desc: "Spinner while working, action-required message while blocked"},
	{id: "thread-name", desc: "Current thread name (omitted when unnamed)"},
	{id: "project-name", desc: "Project name (falls back to current directory name)"},
	{id: "app-name", desc: "Codex app name"},
	{id: "current-dir", desc: "Current working directory"},
	{id: "run-state", desc: "Compact session run-state text (Ready, Working, Thinking)"},
	{id: "thread-title", desc: "Current thread title, or thread identifier when unnamed"},
	{id: "git-branch", desc: "Current Git branch (omitted when unavailable)"},
	{id: "context-remaining", desc: "Percentage of context window remaining (omitted when unknown)"},
	{id: "context-used", desc: "Percentage of context window used (omitted when unknown)"},
	{id: "five-hour-limit", desc: "Remaining usage on the primary usage limit (omitted when unavailable)"},
	{id: "weekly-limit", desc: "Remaining usage on the secondary usage limit (omitted when unavailable)"},
	{id: "codex-version", desc: "Codex application version"},
	{id: "used-tokens", desc: "Total tokens used in session (omitted when zero)"},
	{id: "total-input-tokens", desc: "Total input tokens used in session"},
	{id: "total-output-tokens", desc: "Total output tokens used in session"},
	{id: "thread-credits", desc: "Estimated current-thread credits (Enterprise workspaces only; omitted when unavailable)"},
	{id: "estimated-thread-cost", desc: "Estimated current-thread cost (Enterprise workspaces only; omitted when unavailable)"},
	{id: "thread-id", desc: "Current thread identifier (omitted until thread starts)"},
	{id: "fast-mode", desc: "Effective processing tier for the current model"},
	{id: "daybreak", desc: "Whether Daybreak is enabled for this thread"},
	{id: "model", desc: "Current model name"},
	{id: "model-with-reasoning", desc: "Current model name with reasoning level"},
	{id: "reasoning", desc: "Current reasoning level"},
	{id: "task-progress", desc: "Latest task progress from update_plan (omitted until available)"},
}

// defaultTerminalTitle is Codex's title when tui.terminal_title is unset.
var defaultTerminalTitle = []string{"activity", "thread-name", "project-name"}

// titleSpinner is the activity item's spinner; it moves with the status line's clock
// (one tick a second while a turn runs), so an idle UI never redraws for it.
var titleSpinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// openTitlePicker is /title: choose and order the terminal title's items; enter saves them
// in config.toml (tui.terminal_title) as Codex does.
func (m *Model) openTitlePicker(_, _ string) {
	enabled := m.ui.title
	if enabled == nil {
		enabled = defaultTerminalTitle
	}
	p := newItemsPicker(terminalTitleItems, enabled)
	p.title, p.subtitle = "Configure Terminal Title", "Select which items to display in the terminal title."
	p.preview = func(m *Model, ids []string, _ bool) string { return m.titleFor(ids, true) }
	p.save = func(m *Model, ids []string, _ bool) {
		if f := m.ui.host.SaveTerminalTitle; f != nil {
			if err := f(ids); err != nil {
				m.tr.add(cell{kind: cellError, body: "/title: " + err.Error()})
				m.refresh()
				return
			}
		}
		m.ui.title = ids
		m.refresh()
	}
	m.ui.items = p
	m.refresh()
}

// windowTitle is the terminal title now: the chosen items, Codex's default without a
// choice, "gocodex" when every item is empty.
func (m *Model) windowTitle() string {
	ids := m.ui.title
	if ids == nil {
		ids = defaultTerminalTitle
	}
	if t := m.titleFor(ids, false); t != "" {
		return t
	}
	return "gocodex"
}

// titleFor joins the items' values with " | "; activity is the spinner while a turn runs
// and Codex's action-required mark while a request waits for the person.
func (m *Model) titleFor(ids []string, preview bool) string {
	var parts []string
	for _, id := range ids {
		v := ""
		switch {
		case id == "activity" && (len(m.approvals) > 0 || m.question != nil || preview):
			v = "[ ! ] Action Required"
		case id == "activity" && m.running:
			v = titleSpinner[int(m.now().Sub(m.runStart).Seconds())%len(titleSpinner)]
		case id == "activity":
		default:
			v = m.itemValue(id)
			if v == "" && preview {
				v = itemPlaceholder(id)
			}
		}
		if v != "" {
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, " | ")
}
