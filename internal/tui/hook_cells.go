package tui

import (
	"strings"

	"github.com/gocodex/gocodex/internal/items"
	"github.com/gocodex/gocodex/protocol"
)

// startHook opens a cell for a lifecycle hook that started (id is the fold's, apart from
// the tool calls' ids in transcript.calls).
func (t *transcript) startHook(key string, m *items.HookRun) {
	t.closeStreams()
	title := "Running " + hookName(m.Run.EventName) + " hook"
	if m.Run.StatusMessage != nil && *m.Run.StatusMessage != "" {
		title += ": " + *m.Run.StatusMessage
	}
	t.calls[key] = t.add(cell{kind: cellTool, title: title, open: true})
}

// endHook closes the hook's cell with its outcome and what it said.
func (t *transcript) endHook(key string, m *items.HookRun) {
	i, ok := t.calls[key]
	if !ok {
		i = t.add(cell{kind: cellTool})
	}
	delete(t.calls, key)
	c := &t.cells[i]
	c.open = false
	c.title = hookName(m.Run.EventName) + " hook " + string(m.Run.Status)
	c.failed = m.Run.Status == protocol.HookFailed || m.Run.Status == protocol.HookBlocked
	var lines []string
	for _, e := range m.Run.Entries {
		switch e.Kind {
		case "context", "feedback":
			lines = append(lines, e.Text)
		default:
			lines = append(lines, e.Kind+": "+e.Text)
		}
	}
	c.body = strings.Join(lines, "\n")
}

// hookName is the event as hooks.json spells it (pre_tool_use -> PreToolUse).
func hookName(snake string) string {
	var b strings.Builder
	for _, part := range strings.Split(snake, "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}
