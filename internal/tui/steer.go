package tui

import (
	"strings"

	"github.com/gocodex/gocodex/protocol"
)

// steered is a message sent into the running turn that the engine has not taken yet: the
// engine adds it to the turn's next model request and says so with a user_message event.
type steered struct {
	shown, full string
}

// steer sends text into the running turn, as Codex's Enter does while a turn runs (Tab
// queues it for after the turn instead). It waits above the composer until the engine
// records it.
func (m *Model) steer(text string) {
	full := m.expandPastes(text)
	if !m.submitOp(protocol.UserInputOp{Items: m.messageItems(text, full)}) {
		return
	}
	m.submitOp(protocol.AddToHistoryOp{Text: full})
	m.steers = append(m.steers, steered{shown: text, full: full})
}

// steerRecorded moves the oldest waiting steer into the transcript when the engine records
// it; the turn's own first message (added by submit) matches none.
func (m *Model) steerRecorded(e protocol.UserMessageEvent) {
	if len(m.steers) == 0 || e.Message != m.steers[0].full {
		return
	}
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: m.steers[0].shown})
	m.steers = m.steers[1:]
	m.refresh()
}

// steersDropped handles an aborted turn: the engine drops input it had not taken, so it
// is sent again as the next message ("press esc to interrupt and send immediately").
func (m *Model) steersDropped() {
	if len(m.steers) == 0 {
		return
	}
	texts := make([]string, len(m.steers))
	for i, s := range m.steers {
		texts[i] = s.full
	}
	m.steers = nil
	m.queued = append([]string{strings.Join(texts, "\n")}, m.queued...)
}

// pendingView lists the steered and queued messages above the composer, as Codex does.
func (m *Model) pendingView() string {
	var lines []string
	item := func(text string) {
		first, _, more := strings.Cut(text, "\n")
		if more {
			first += " …"
		}
		lines = append(lines, truncate("  ↳ "+first, m.width))
	}
	if len(m.steers) > 0 {
		lines = append(lines, truncate("• Messages to be submitted after next tool call (press esc to interrupt and send immediately)", m.width))
		for _, s := range m.steers {
			item(s.shown)
		}
	}
	if len(m.queued) > 0 {
		lines = append(lines, "• Queued follow-up inputs")
		for _, q := range m.queued {
			item(q)
		}
		lines = append(lines, m.st.dim.Render("    shift+← edit last queued message"))
	}
	return strings.Join(lines, "\n")
}
