package tui

import (
	"context"
	"time"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// recapTimeout bounds the recap's model request.
const recapTimeout = 5 * time.Minute

// recap is /recap: the model summarizes the conversation in a side thread, so neither the
// request nor the recap joins the thread's history; the recap is shown here.
func (m *Model) recap(typed, _ string) {
	recap := m.ui.host.Recap
	switch {
	case recap == nil || m.threadID == "":
		m.commandError(typed, "/recap is not available here: this thread is not recorded.")
		return
	case m.ui.recapping:
		m.commandError(typed, "A recap is already being generated.")
		return
	case !m.conversationStarted():
		m.commandError(typed, "There is no conversation history to recap.")
		return
	}
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: typed})
	m.tr.add(cell{kind: cellInfo, body: "Generating a recap…"})
	m.refresh()
	m.ui.recapping = true
	id := m.threadID
	m.pending = func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), recapTimeout)
		defer cancel()
		text, err := guarded(func() (string, error) { return recap(ctx, id) })
		return uiDoneMsg(func(m *Model) tea.Cmd {
			m.ui.recapping = false
			if err != nil {
				m.tr.add(cell{kind: cellError, body: "/recap: " + err.Error()})
			} else {
				m.tr.add(cell{kind: cellAgent, body: "Recap\n\n" + text})
			}
			m.refresh()
			return nil
		})
	}
}
