package tui

import (
	"fmt"

	"github.com/gocodex/gocodex/protocol"
)

// toggleFast is /fast: priority processing ("fast", sent as service_tier "priority") for
// the next turns, or back to the default tier; kept in config.toml (service_tier) as
// Codex does. A model whose provider has no priority tier gets a message instead.
func (m *Model) toggleFast(typed, _ string) {
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: typed})
	defer m.refresh()
	if f := m.ui.host.FastTier; f == nil {
		m.tr.add(cell{kind: cellError, body: "/fast is not available here: the host keeps no service tier."})
		return
	} else if _, ok := f(m.header.Model); !ok && m.ui.serviceTier != "fast" {
		m.tr.add(cell{kind: cellError, body: fmt.Sprintf("Fast mode is not available for %s: its provider offers no priority processing tier.", m.header.Model)})
		return
	}
	tier, shown := "fast", "priority"
	if m.ui.serviceTier == "fast" {
		tier, shown = "default", "default"
	}
	if !m.submitOp(protocol.OverrideTurnContextOp{ServiceTier: &tier}) {
		return
	}
	m.ui.serviceTier = tier
	if f := m.ui.host.SaveServiceTier; f != nil {
		if err := f(tier); err != nil {
			m.tr.add(cell{kind: cellWarning, body: "Service tier set to " + shown + " for this session; config.toml not updated: " + err.Error()})
			return
		}
	}
	m.tr.add(cell{kind: cellNote, body: "Service tier set to " + shown})
}
