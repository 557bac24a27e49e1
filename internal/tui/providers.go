package tui

import (
	"context"
	"strings"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// ProviderChoice is a configured model provider /model offers (when more than one is
// usable).
type ProviderChoice struct {
	ID, Name string
}

// providerValue marks a provider row among the /model picker's model rows.
const providerValue = "provider:"

// addProviderItems appends the providers to the /model picker when there is a choice.
func (m *Model) addProviderItems(p *picker) {
	if len(m.providers) < 2 || m.hooks.SwitchProvider == nil {
		return
	}
	for _, c := range m.providers {
		name := c.Name
		if name == "" {
			name = c.ID
		}
		p.items = append(p.items, pickerItem{label: "Provider: " + name, desc: "continue this conversation with " + c.ID,
			value: providerValue + c.ID, current: c.ID == m.header.Provider})
	}
}

// pickProvider continues the conversation on another provider: the hook forks the thread
// with that provider's settings (a thread's provider is fixed once it runs), and the UI
// switches to the fork as /fork does.
func (m *Model) pickProvider(value string) tea.Cmd {
	id := strings.TrimPrefix(value, providerValue)
	if id == m.header.Provider {
		return nil
	}
	thread, switchTo := m.threadID, m.hooks.SwitchProvider
	return openSession("model", func(ctx context.Context) (Session, error) {
		s, err := switchTo(ctx, thread, id)
		if err == nil && s.Provider == "" {
			s.Provider = id
		}
		return s, err
	})
}
