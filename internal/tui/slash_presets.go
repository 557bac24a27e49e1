package tui

import (
	"strings"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/internal/host/uicommands"
)

// presetSlots are Codex's ten preset slots, in its order.
var presetSlots = []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "0"}

// presets is /presets: the saved prompts and slash commands (tui.presets in config.toml,
// Codex's keys); enter or the slot's digit sends one as if typed. `/presets save TEXT`
// keeps TEXT in the first free slot, `/presets delete N` empties slot N.
func (m *Model) presets(typed, args string) {
	save := m.ui.host.SavePreset
	if save == nil {
		m.commandError(typed, "/presets is not available here: the host keeps no presets.")
		return
	}
	verb, rest, _ := strings.Cut(args, " ")
	rest = strings.TrimSpace(rest)
	switch {
	case verb == "save" && rest != "":
		m.savePreset(typed, rest)
		return
	case verb == "delete" && rest != "":
		m.tr.closeStreams()
		m.tr.add(cell{kind: cellUser, body: typed})
		if _, ok := m.ui.presets[rest]; !ok {
			m.tr.add(cell{kind: cellError, body: "No preset in slot " + rest + "."})
		} else if err := save(rest, uicommands.Preset{}); err != nil {
			m.tr.add(cell{kind: cellError, body: "/presets: " + err.Error()})
		} else {
			delete(m.ui.presets, rest)
			m.tr.add(cell{kind: cellNote, body: "Deleted preset " + rest + "."})
		}
		m.refresh()
		return
	case args != "":
		m.commandError(typed, "Usage: /presets [save <text> | delete <slot>]")
		return
	}
	p := &picker{title: "Presets", empty: "No presets saved. Save one with /presets save <prompt or slash command>."}
	for _, slot := range presetSlots {
		if pr, ok := m.ui.presets[slot]; ok {
			label := pr.Label
			if label == "" {
				label = pr.Input
			}
			p.items = append(p.items, pickerItem{label: slot + " · " + label, value: slot})
		}
	}
	p.onPick = func(m *Model, it pickerItem) tea.Cmd {
		text := m.ui.presets[it.value].Input
		m.remember(text)
		m.submit(text)
		return nil
	}
	m.picker = p
	m.refresh()
}

func (m *Model) savePreset(typed, text string) {
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: typed})
	defer m.refresh()
	for _, slot := range presetSlots {
		if _, used := m.ui.presets[slot]; used {
			continue
		}
		pr := uicommands.Preset{Input: text}
		if err := m.ui.host.SavePreset(slot, pr); err != nil {
			m.tr.add(cell{kind: cellError, body: "/presets: " + err.Error()})
			return
		}
		if m.ui.presets == nil {
			m.ui.presets = map[string]uicommands.Preset{}
		}
		m.ui.presets[slot] = pr
		m.tr.add(cell{kind: cellNote, body: "Saved preset " + slot + "."})
		return
	}
	m.tr.add(cell{kind: cellError, body: "Every preset slot is taken: /presets delete <slot> first."})
}
