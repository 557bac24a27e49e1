package tui

import (
	"strings"

	"github.com/gocodex/gocodex/protocol"
)

// hookKey keeps hook runs apart from tool calls in transcript.calls.
func hookKey(run protocol.HookRunSummary) string { return "hook:" + run.ID }

// startHook opens a cell for a lifecycle hook that started.
func (t *transcript) startHook(m protocol.HookStartedEvent) {
	t.closeStreams()
	title := "Running " + hookName(m.Run.EventName) + " hook"
	if m.Run.StatusMessage != nil && *m.Run.StatusMessage != "" {
		title += ": " + *m.Run.StatusMessage
	}
	t.calls[hookKey(m.Run)] = t.add(cell{kind: cellTool, title: title, open: true})
}

// endHook closes the hook's cell with its outcome and what it said.
func (t *transcript) endHook(m protocol.HookCompletedEvent) {
	key := hookKey(m.Run)
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
