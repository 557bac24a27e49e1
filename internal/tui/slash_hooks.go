package tui

import (
	"fmt"
	"strings"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/internal/host/uicommands"
)

// hookEvents are the lifecycle events in Codex 0.171's /hooks order, with its descriptions.
var hookEvents = []struct{ name, desc string }{
	{"PreToolUse", "Before a tool executes"},
	{"PermissionRequest", "When permission is requested"},
	{"PostToolUse", "After a tool executes"},
	{"PreCompact", "Before context compaction"},
	{"PostCompact", "After context compaction"},
	{"SessionStart", "When a new session starts"},
	{"SessionEnd", "Right before a session ends"},
	{"UserPromptSubmit", "When the user submits a prompt"},
	{"SubagentStart", "When a subagent is created"},
	{"SubagentStop", "Right before a subagent ends its turn"},
	{"Stop", "Right before the agent ends its turn"},
}

// openHooks is /hooks: each lifecycle event with how many hooks are installed and active;
// enter shows an event's hooks.
func (m *Model) openHooks(typed, _ string) {
	list := m.ui.host.Hooks
	if list == nil {
		m.commandError(typed, "/hooks is not available here: the host reads no hooks.")
		return
	}
	hooks := list()
	p := &picker{title: "Hooks — Lifecycle hooks from config and enabled plugins.\n\n     " +
		fmt.Sprintf("%-20s  %-9s  %-6s  %s", "Event", "Installed", "Active", "Description")}
	for _, ev := range hookEvents {
		installed, active := 0, 0
		for _, h := range hooks {
			if h.Event == ev.name {
				installed++
				if h.Active {
					active++
				}
			}
		}
		p.items = append(p.items, pickerItem{label: fmt.Sprintf("%-20s  %-9d  %-6d", ev.name, installed, active), desc: ev.desc, value: ev.name})
	}
	p.onPick = func(m *Model, it pickerItem) tea.Cmd {
		m.tr.add(cell{kind: cellNote, body: hookDetails(it.value, hooks)})
		m.refresh()
		return nil
	}
	m.picker = p
	m.refresh()
}

func hookDetails(event string, hooks []uicommands.Hook) string {
	var b strings.Builder
	b.WriteString(event + " hooks")
	n := 0
	for _, h := range hooks {
		if h.Event != event {
			continue
		}
		n++
		state := "active"
		if !h.Active {
			state = "inactive (" + h.Trust + ")"
		}
		fmt.Fprintf(&b, "\n• %s", h.Command)
		if h.Matcher != "" {
			fmt.Fprintf(&b, "  matcher: %s", h.Matcher)
		}
		fmt.Fprintf(&b, "\n  %s · %s", state, h.Source)
	}
	if n == 0 {
		b.WriteString("\nNo hooks installed for this event.")
	}
	return b.String()
}
