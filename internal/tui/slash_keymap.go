package tui

import (
	"strings"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// keyAction is a global shortcut /keymap can bind, named as Codex 0.171 names it in
// config.toml (`[tui.keymap.global] NAME = "key"`).
type keyAction struct {
	name, title, desc, def string
	run                    func(m *Model)
}

// keyActions are the global actions gocodex has that Codex's keymap configures.
func keyActions() []keyAction {
	return []keyAction{
		{name: "open_transcript", title: "Open Transcript", desc: "Open the transcript pager.", def: "ctrl-t", run: (*Model).openPager},
		{name: "copy", title: "Copy", desc: "Copy the last response.", def: "ctrl-o", run: func(m *Model) { m.copyCommand("/copy", "") }},
		{name: "toggle_vim_mode", title: "Toggle Vim Mode", desc: "Turn Vim composer mode on or off.", run: func(m *Model) { m.vimCommand("/vim", "") }},
		{name: "toggle_raw_output", title: "Toggle Raw Output", desc: "Show answers as written or rendered.", def: "alt-r", run: func(m *Model) { m.rawCommand("/raw", "") }},
	}
}

// codexKey writes a key as Codex's keymap does ("ctrl-t", "alt-r", "f7"); bubbletea
// writes "ctrl+t".
func codexKey(ks string) string { return strings.ReplaceAll(ks, "+", "-") }

// keymap is the bound shortcuts: key (Codex's spelling) to action, the custom ones over the
// defaults; capturing is the action waiting for its new key.
type keymap struct {
	custom    map[string]string // action name -> key, from config.toml
	byKey     map[string]keyAction
	capturing *keyAction
}

// setKeymap builds the bindings from the custom ones ([tui.keymap.global]).
func (m *Model) setKeymap(custom map[string]string) {
	m.keys.custom = custom
	m.keys.byKey = map[string]keyAction{}
	for _, a := range keyActions() {
		key := a.def
		if k, ok := custom[a.name]; ok {
			key = k
		}
		if key != "" {
			m.keys.byKey[key] = a
		}
	}
}

// boundKey runs the action bound to ks; it reports whether there was one. One map lookup
// a key: typing does not slow down.
func (m *Model) boundKey(ks string) bool {
	if m.keys.byKey == nil {
		m.setKeymap(nil)
	}
	a, ok := m.keys.byKey[codexKey(ks)]
	if !ok {
		return false
	}
	a.run(m)
	return true
}

// keyOf is the key an action is bound to ("unbound" for none).
func (m *Model) keyOf(a keyAction) string {
	key := a.def
	if k, ok := m.keys.custom[a.name]; ok {
		key = k
	}
	if key == "" {
		return "unbound"
	}
	return key
}

// keymapCommand is /keymap: the configurable shortcuts; Enter captures a new key for one
// and saves it where Codex does.
func (m *Model) keymapCommand(_, _ string) {
	p := &picker{title: "Keymap", subtitle: "Changes write `tui.keymap.global.*` in config.toml.", searchable: true}
	for _, a := range keyActions() {
		p.items = append(p.items, pickerItem{label: "Global  " + a.title, desc: m.keyOf(a), value: a.name})
	}
	p.onPick = func(m *Model, it pickerItem) tea.Cmd {
		for _, a := range keyActions() {
			if a.name == it.value {
				m.keys.capturing = &a
				m.info("Remap " + a.title + " (global." + a.name + "), now " + m.keyOf(a) + ": press the new key now. Esc cancels.")
			}
		}
		return nil
	}
	m.picker = p
}

// captureKey takes the key pressed for the action being remapped.
func (m *Model) captureKey(ks string) {
	a := *m.keys.capturing
	m.keys.capturing = nil
	if ks == "esc" {
		m.info("Shortcut unchanged.")
		return
	}
	key := codexKey(ks)
	custom := map[string]string{}
	for k, v := range m.keys.custom {
		custom[k] = v
	}
	custom[a.name] = key
	m.setKeymap(custom)
	m.persistPath([]string{"keymap", "global", a.name}, key)
	m.info(a.title + " is now " + key + ".")
}
