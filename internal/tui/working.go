package tui

import (
	"fmt"
	"time"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// workingTickMsg redraws the status line's elapsed time; start tells a tick of an earlier
// turn from the current one's.
type workingTickMsg struct{ start time.Time }

// workingClock keeps the elapsed time of a running turn moving: one tick a second while a
// turn runs and none otherwise, so an idle UI stays at rest.
func (m *Model) workingClock(msg tea.Msg) tea.Cmd {
	if !m.running {
		m.runStart = time.Time{}
		return nil
	}
	if m.runStart.IsZero() {
		m.runStart = m.now()
		if !m.liveClock {
			return nil
		}
		return m.workingTick()
	}
	if t, ok := msg.(workingTickMsg); ok && t.start.Equal(m.runStart) {
		return m.workingTick()
	}
	return nil
}

func (m *Model) workingTick() tea.Cmd {
	start := m.runStart
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return workingTickMsg{start: start} })
}

// elapsed writes d as Codex's status line does: 7s, 1m 05s, 1h 02m 03s.
func elapsed(d time.Duration) string {
	s := int(d / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm %02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh %02dm %02ds", s/3600, s/60%60, s%60)
}
