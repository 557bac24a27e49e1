package tui

import (
	"strings"
)

// slashCmd is one of the UI's own commands. Names and descriptions follow Codex 0.169's popup
// (testdata/codex_slash_commands.txt) where Codex has the command.
type slashCmd struct {
	name, desc string
	// hidden commands (aliases) are offered only once their first letters are typed.
	hidden bool
	// whileRunning commands may run while a turn is in progress.
	whileRunning bool
	run          func(m *Model, typed, args string)
}

// builtinCommands are in Codex's order, ours that Codex lacks where they fit. (A function,
// not a table: the commands' own code lists them.)
func builtinCommands() []slashCmd {
	return []slashCmd{
		{name: "model", desc: "choose what model and reasoning effort to use", run: (*Model).openModelPicker},
		{name: "fast", desc: "1.5x speed, increased usage", whileRunning: true, run: (*Model).toggleFast},
		{name: "presets", desc: "run or save reusable prompts and slash commands", run: (*Model).presets},
		unsupported("ide", "include current selection, open files, and other context from your IDE"),
		{name: "permissions", desc: "choose what Codex is allowed to do", run: (*Model).openPermissionsPicker},
		{name: "approvals", desc: "choose what Codex is allowed to do", hidden: true, run: (*Model).openPermissionsPicker},
		{name: "keymap", desc: "remap TUI shortcuts", run: (*Model).keymapCommand},
		{name: "vim", desc: "toggle Vim mode for the composer", whileRunning: true, run: (*Model).vimCommand},
		{name: "experimental", desc: "toggle experimental features", run: (*Model).experimentalCommand},
		unsupported("approve", "approve one retry of a recent auto-review denial"),
		unsupported("memories", "configure memory use and generation"),
		{name: "skills", desc: "use skills to improve how Codex performs specific tasks", whileRunning: true, run: (*Model).openSkills},
		unsupported("import", "import setup, this project, and recent chats from Claude Code"),
		{name: "hooks", desc: "view and manage lifecycle hooks", whileRunning: true, run: (*Model).openHooks},
		{name: "review", desc: "review my current changes and find issues", run: func(m *Model, typed, args string) { m.startReview(typed, args) }},
		{name: "rename", desc: "rename the current thread", whileRunning: true, run: (*Model).renameThread},
		{name: "new", desc: "start a new chat during a conversation", run: (*Model).newThread},
		{name: "archive", desc: "archive this session", run: (*Model).archiveThread},
		{name: "delete", desc: "permanently delete this session", run: (*Model).deleteThread},
		{name: "resume", desc: "resume a saved chat", run: (*Model).openResumePicker},
		{name: "fork", desc: "fork the current chat", run: (*Model).forkThread},
		{name: "worktree", desc: "start or continue a conversation in a new worktree", run: (*Model).openWorktree},
		{name: "init", desc: "create an AGENTS.md file with instructions for Codex", run: (*Model).initAgentsFile},
		{name: "compact", desc: "summarize conversation to prevent hitting the context limit", run: (*Model).compact},
		{name: "config", desc: "configure Codex preferences", run: (*Model).configCommand},
		{name: "recap", desc: "summarize the current conversation now", whileRunning: true, run: (*Model).recap},
		{name: "plan", desc: "switch to Plan mode", run: func(m *Model, _, _ string) { m.togglePlanMode() }},
		unsupported("goal", "set or view the goal for a long-running task"),
		{name: "agents", desc: "open the agent command center", whileRunning: true, run: (*Model).openAgentsPicker},
		{name: "side", desc: "start a side conversation", run: (*Model).side},
		{name: "undo", desc: "restore the files and the conversation to before the last turn", run: func(m *Model, typed, _ string) { m.undo(typed) }},
		{name: "copy", desc: "copy the last response or part of it", whileRunning: true, run: (*Model).copyCommand},
		{name: "export", desc: "export the conversation as markdown", whileRunning: true, run: (*Model).exportCommand},
		{name: "raw", desc: "toggle raw scrollback mode for copy-friendly terminal selection", whileRunning: true, run: (*Model).rawCommand},
		{name: "tui", desc: "choose the TUI mode for the next launch", run: (*Model).tuiModeCommand},
		{name: "diff", desc: "show git diff (including untracked files)", whileRunning: true, run: func(m *Model, typed, _ string) { m.showDiff(typed) }},
		{name: "mention", desc: "mention a file", whileRunning: true, run: (*Model).mention},
		{name: "status", desc: "show current session configuration and token usage", whileRunning: true, run: func(m *Model, typed, _ string) { m.showStatus(typed) }},
		unsupported("daemon", "Manage the local background server"),
		unsupported("rc", "manage remote control for the local background server"),
		{name: "warnings", desc: "view retained warnings and diagnostic details", whileRunning: true, run: (*Model).warningsCommand},
		{name: "cd", desc: "change the current working directory", run: (*Model).cdCommand},
		{name: "pwd", desc: "show the current working directory", whileRunning: true, run: (*Model).pwdCommand},
		{name: "title", desc: "configure which items appear in the terminal title", whileRunning: true, run: (*Model).openTitlePicker},
		{name: "statusline", desc: "configure which items appear in the status line", whileRunning: true, run: (*Model).openStatusLinePicker},
		{name: "theme", desc: "choose a syntax highlighting theme", run: (*Model).openThemePicker},
		unsupported("pets", "choose or hide the terminal pet"),
		{name: "mcp", desc: "list MCP tools; use /mcp verbose or /mcp login <name>", run: (*Model).mcpCommand},
		unsupported("plugins", "browse plugins"),
		{name: "logout", desc: "log out of Codex", run: (*Model).logout},
		{name: "commands", desc: "list the slash commands, custom ones included", whileRunning: true, run: func(m *Model, typed, _ string) { m.listCommands(typed) }},
		{name: "exit", desc: "exit Codex", whileRunning: true, run: (*Model).quitCommand},
		{name: "quit", desc: "exit Codex", hidden: true, whileRunning: true, run: (*Model).quitCommand},
		{name: "feedback", desc: "send logs to maintainers or save a ZIP", whileRunning: true, run: (*Model).feedback},
		{name: "ps", desc: "list background terminals", whileRunning: true, run: (*Model).listBackgroundTerminals},
		{name: "stop", desc: "stop all background terminals", whileRunning: true, run: (*Model).stopBackgroundTerminals},
		{name: "clear", desc: "clear the terminal and start a new chat", run: (*Model).clearCommand},
		{name: "subagents", desc: "switch between this session's subagents", whileRunning: true, run: (*Model).openAgentsPicker},
	}
}

func findBuiltin(name string) (slashCmd, bool) {
	for _, c := range builtinCommands() {
		if c.name == name {
			return c, true
		}
	}
	return slashCmd{}, false
}

// popupItem is one row of the slash popup.
type popupItem struct{ name, desc string }

// maxPopupRows is how many commands the popup shows at once, as Codex's does.
const maxPopupRows = 8

// slashPopup is the command list open while the composer holds a lone "/word".
type slashPopup struct {
	items    []popupItem
	selected int
	// dismissed is the text Esc closed the popup on; typing something else reopens it.
	dismissed string
}

// slashQuery is the word after "/" when the composer holds only "/word" (no space, one line).
func slashQuery(text string) (string, bool) {
	if !strings.HasPrefix(text, "/") || strings.ContainsAny(text, " \t\n") {
		return "", false
	}
	return text[1:], true
}

// popupMatches lists the commands whose name starts with query: the built-in ones in their
// order, then the custom ones. Hidden aliases need at least one letter typed.
func (m *Model) popupMatches(query string) []popupItem {
	var out []popupItem
	for _, c := range builtinCommands() {
		if c.hidden && query == "" {
			continue
		}
		if strings.HasPrefix(c.name, query) {
			out = append(out, popupItem{c.name, c.desc})
		}
	}
	if m.commands != nil {
		for _, c := range m.commands.List() {
			if _, builtin := findBuiltin(c.Name); !builtin && strings.HasPrefix(c.Name, query) {
				desc := c.Description
				if desc == "" {
					desc = "send saved prompt"
				}
				out = append(out, popupItem{c.Name, desc})
			}
		}
	}
	return out
}

// syncPopup opens, filters or closes the popup after the composer changed.
func (m *Model) syncPopup() {
	q, ok := slashQuery(m.input.Value())
	if !ok || m.input.Value() == m.popup.dismissed {
		m.popup.items = nil
		if !ok {
			m.popup.dismissed = ""
		}
		return
	}
	prev := ""
	if m.popup.selected < len(m.popup.items) {
		prev = m.popup.items[m.popup.selected].name
	}
	m.popup.items = m.popupMatches(q)
	m.popup.selected = 0
	for i, it := range m.popup.items {
		if it.name == prev {
			m.popup.selected = i
		}
	}
}

// popupKey handles a key while the popup is open; it reports false for keys the composer
// should get.
func (m *Model) popupKey(ks string) bool {
	p := &m.popup
	n := len(p.items)
	switch ks {
	case "up", "ctrl+p":
		p.selected = (p.selected - 1 + n) % n
	case "down", "ctrl+n":
		p.selected = (p.selected + 1) % n
	case "tab":
		m.input.SetValue("/" + p.items[p.selected].name + " ")
		m.popup.items = nil
	case "esc":
		p.dismissed = m.input.Value()
		p.items = nil
	case "enter":
		name := p.items[p.selected].name
		m.input.Reset()
		m.popup.items = nil
		m.remember("/" + name)
		m.submit("/" + name)
	default:
		return false
	}
	return true
}

// popupView draws the popup's visible rows, the selected one marked.
func (m *Model) popupView() string {
	p := m.popup
	start := 0
	if p.selected >= maxPopupRows {
		start = p.selected - maxPopupRows + 1
	}
	end := min(len(p.items), start+maxPopupRows)
	nameWidth := 0
	for _, it := range p.items[start:end] {
		nameWidth = max(nameWidth, len(it.name)+1)
	}
	var lines []string
	for i := start; i < end; i++ {
		it := p.items[i]
		mark := "  "
		line := "/" + it.name + strings.Repeat(" ", nameWidth-len(it.name)+1) + it.desc
		if i == p.selected {
			mark = "› "
			line = m.st.bold.Render(line)
		} else {
			line = m.st.dim.Render(line)
		}
		lines = append(lines, truncate(mark+line, m.width))
	}
	return strings.Join(lines, "\n")
}
