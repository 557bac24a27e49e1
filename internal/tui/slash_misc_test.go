package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/protocol"
)

// /warnings gathers the warnings shown so far; /raw shows an answer's Markdown as written.
func TestWarningsAndRaw(t *testing.T) {
	h := newHarness(t, "")
	h.event(protocol.WarningEvent{Message: "the sandbox could not be applied"})
	h.command("/warnings")
	if scr := h.screen(); !strings.Contains(scr, "Warnings") || strings.Count(scr, "the sandbox could not be applied") != 2 {
		t.Errorf("/warnings:\n%s", scr)
	}
	h.event(protocol.AgentMessageEvent{Message: "# Title\n\n**bold**"})
	h.command("/raw")
	if scr := h.screen(); !strings.Contains(scr, "# Title") || !strings.Contains(scr, "**bold**") {
		t.Errorf("raw:\n%s", scr)
	}
	h.command("/raw")
	if scr := h.screen(); strings.Contains(scr, "**bold**") {
		t.Errorf("raw off:\n%s", scr)
	}
}

// /config lists the UI's preferences; picking one opens its picker or switches it.
func TestConfigPanel(t *testing.T) {
	for _, w := range []int{80, 120} {
		h := newHarness(t, "")
		h.resize(w, 32)
		h.command("/config")
		h.golden("config_panel_" + itoa(w))
	}
	h := newHarness(t, "")
	h.command("/config")
	h.typeText("3") // Vim mode
	if !h.m.vim.on {
		t.Error("Vim mode did not switch on")
	}
	h.command("/config")
	h.runCmd(h.key(keyEnter)) // Theme
	if h.m.picker == nil || h.m.picker.title != "Select Syntax Theme" {
		t.Errorf("Theme did not open the theme picker:\n%s", h.screen())
	}
}

// /experimental lists the flags with checkboxes; Enter switches one and saves it.
func TestExperimentalPicker(t *testing.T) {
	features := []ExperimentalFeature{
		{Name: "custom_statusline", DisplayName: "Custom status line", Description: "Restart the TUI, then use /statusline.", Unsupported: "not supported by gocodex"},
		{Name: "prevent_idle_sleep", DisplayName: "Prevent sleep while running", Description: "Keep your computer awake.", Enabled: true},
	}
	for _, w := range []int{80, 120} {
		h := newHarness(t, "")
		h.resize(w, 32)
		h.m.experimental = append([]ExperimentalFeature(nil), features...)
		h.command("/experimental")
		h.golden("experimental_" + itoa(w))
	}
	h := newHarness(t, "")
	h.m.experimental = append([]ExperimentalFeature(nil), features...)
	var saved []string
	h.m.settings.saveFeature = func(name string, on bool) error {
		saved = append(saved, name+"="+map[bool]string{true: "on", false: "off"}[on])
		return nil
	}
	h.command("/experimental")
	h.runCmd(h.key(keyEnter))
	h.typeText("2")
	if strings.Join(saved, ",") != "custom_statusline=on,prevent_idle_sleep=off" {
		t.Errorf("saved %v", saved)
	}
	if !strings.Contains(h.screen(), "[x] Custom status line") {
		t.Errorf("the picker does not show the switch:\n%s", h.screen())
	}
}

// /keymap lists the shortcuts; Enter then a key binds it and saves tui.keymap.global.NAME.
func TestKeymap(t *testing.T) {
	for _, w := range []int{80, 120} {
		h := newHarness(t, "")
		h.resize(w, 32)
		h.command("/keymap")
		h.golden("keymap_" + itoa(w))
	}
	h := newHarness(t, "")
	var saved []string
	h.m.settings.save = func(path []string, value any) error {
		saved = append(saved, strings.Join(path, ".")+"="+value.(string))
		return nil
	}
	h.command("/keymap")
	h.typeText("vim")
	h.runCmd(h.key(keyEnter))
	h.key(tea.Key{Code: tea.KeyF7})
	if strings.Join(saved, ",") != "keymap.global.toggle_vim_mode=f7" {
		t.Fatalf("saved %v", saved)
	}
	h.key(tea.Key{Code: tea.KeyF7})
	if !h.m.vim.on {
		t.Error("F7 did not toggle Vim mode")
	}
	h.m.setKeymap(map[string]string{"open_transcript": "f2"})
	if h.key(tea.Key{Code: 't', Mod: tea.ModCtrl}); h.m.pager != nil {
		t.Error("ctrl+t still opens the pager after it was remapped")
	}
	if h.key(tea.Key{Code: tea.KeyF2}); h.m.pager == nil {
		t.Error("F2 does not open the pager")
	}
}

// /export into a folder that does not exist says why and writes nothing.
func TestExportRefusesAMissingFolder(t *testing.T) {
	h := newHarness(t, "")
	h.m.header.Cwd = t.TempDir()
	h.command("/export no/such/dir/out.md")
	if !strings.Contains(h.screen(), "/export:") || !strings.Contains(h.screen(), "no such file or directory") {
		t.Errorf("no error shown:\n%s", h.screen())
	}
}

// The built-in commands Codex 0.171 also has come in its popup's order (recorded in
// testdata/codex_0171_slash_commands.txt), and the ones added for it say what Codex's say.
func TestBuiltinsFollowCodex0171(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "codex_0171_slash_commands.txt"))
	if err != nil {
		t.Fatal(err)
	}
	codexDesc, codexPos := map[string]string{}, map[string]int{}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		name, desc, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
		codexDesc[name], codexPos[name] = strings.TrimSpace(desc), i
	}
	last := -1
	for _, c := range builtinCommands() {
		pos, ok := codexPos[c.name]
		if !ok {
			continue
		}
		if pos < last {
			t.Errorf("/%s comes after a command Codex lists later", c.name)
		}
		last = pos
	}
	for _, name := range []string{"copy", "export", "rename", "archive", "delete", "clear", "pwd", "cd", "raw", "tui", "warnings", "config", "experimental", "keymap", "vim", "theme"} {
		c, ok := findBuiltin(name)
		if !ok || c.desc != codexDesc[name] {
			t.Errorf("/%s: %q, Codex says %q", name, c.desc, codexDesc[name])
		}
	}
}
