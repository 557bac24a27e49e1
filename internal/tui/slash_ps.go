package tui

import (
	"fmt"
	"strings"

	"github.com/gocodex/gocodex/protocol"
)

// listBackgroundTerminals is /ps: the processes the model left running (exec_command
// sessions), in Codex's words.
func (m *Model) listBackgroundTerminals(typed, _ string) {
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: typed})
	var terms []BackgroundTerminal
	if f := m.ui.host.BackgroundTerminals; f != nil {
		terms = f(m.engine)
	}
	var b strings.Builder
	b.WriteString("Background terminals")
	if len(terms) == 0 {
		b.WriteString("\n• No background terminals running.")
	}
	for _, t := range terms {
		fmt.Fprintf(&b, "\n• %s  (process %s, in %s)", t.Command, t.ProcessID, tildeHome(t.Cwd))
	}
	m.tr.add(cell{kind: cellNote, body: b.String()})
	m.refresh()
}

// stopBackgroundTerminals is /stop: every background terminal of the thread is killed.
func (m *Model) stopBackgroundTerminals(typed, _ string) {
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: typed})
	if m.submitOp(protocol.CleanBackgroundTerminalsOp{}) {
		m.tr.add(cell{kind: cellNote, body: "Stopping all background terminals."})
	}
	m.refresh()
}
