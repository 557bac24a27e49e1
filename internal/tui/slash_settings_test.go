package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/internal/host/uicommands"
	"github.com/gocodex/gocodex/protocol"
)

var keySpace = tea.Key{Code: tea.KeySpace, Text: " "}

// /statusline's and /title's pickers, at 80 and 120 columns.
func TestItemsPickerGoldens(t *testing.T) {
	h := newHarness(t, "")
	h.m.setUIHost(UIHost{StatusLineUseColors: true,
		Hooks: func() []uicommands.Hook {
			return []uicommands.Hook{{Event: "PreToolUse", Command: "echo hi", Active: true}}
		},
		Skills: func() []uicommands.Skill {
			return []uicommands.Skill{{Name: "greeter", Description: "Greets people.", Enabled: true}}
		},
		WorktreeThread: func(context.Context, string) (Session, error) { return Session{}, nil },
		Presets:        map[string]uicommands.Preset{"1": {Input: "summarize the repo"}, "0": {Input: "/review", Label: "review changes"}},
		SavePreset:     func(string, uicommands.Preset) error { return nil }})
	h.m.ui.hostname, h.m.ui.gitBranch = "", ""
	for _, w := range []int{80, 120} {
		h.resize(w, 32)
		h.command("/worktree")
		h.golden("worktree_picker_" + itoa(w))
		h.key(keyEsc)
		h.command("/presets")
		h.golden("presets_picker_" + itoa(w))
		h.key(keyEsc)
		h.command("/hooks")
		h.golden("hooks_picker_" + itoa(w))
		h.key(keyEsc)
		h.command("/skills")
		h.golden("skills_picker_" + itoa(w))
		h.key(keyEsc)
		h.command("/statusline")
		if h.m.ui.items == nil {
			t.Fatal("/statusline opened no picker")
		}
		h.golden("statusline_picker_" + itoa(w))
		h.key(keyEsc)
		h.command("/title")
		h.golden("title_picker_" + itoa(w))
		h.key(keyEsc)
		h.command("/feedback")
		h.golden("feedback_picker_" + itoa(w))
		h.key(keyEsc)
	}
	if ops := h.eng.takeOps(); len(ops) != 0 {
		t.Errorf("the pickers submitted %v", ops)
	}
}

// Space toggles, ←/→ move the highlighted item, enter hands the order to the host; the
// status line then draws those items.
func TestStatusLinePickerSavesOrder(t *testing.T) {
	h := newHarness(t, "")
	var saved []string
	savedColors := true
	h.m.setUIHost(UIHost{StatusLineUseColors: true, SaveStatusLine: func(items []string, colors bool) error {
		saved, savedColors = items, colors
		return nil
	}})
	h.command("/statusline")
	h.key(keySpace) // "Use theme colors" off
	for range 4 {
		h.key(tea.Key{Code: tea.KeyDown})
	}
	h.key(keySpace)                   // model on
	h.key(tea.Key{Code: tea.KeyLeft}) // above thread-name
	h.key(tea.Key{Code: tea.KeyUp})   // current-dir
	h.key(keySpace)                   // current-dir off
	h.key(keyEnter)
	if got := strings.Join(saved, ","); got != "model-with-reasoning,model,thread-name" || savedColors {
		t.Fatalf("saved %q colors %v", got, savedColors)
	}
	if f := h.m.footerView(); !strings.Contains(f, "gpt-test default · gpt-test") || strings.Contains(f, "/work/project") {
		t.Errorf("status line after /statusline: %q", f)
	}
}

// Typing filters the items; the terminal title follows /title's items.
func TestTitlePickerFiltersAndSaves(t *testing.T) {
	h := newHarness(t, "")
	var saved []string
	h.m.setUIHost(UIHost{SaveTerminalTitle: func(items []string) error { saved = items; return nil }})
	if got := h.m.windowTitle(); got != "project" {
		t.Errorf("default title %q, want the project name", got)
	}
	h.command("/title")
	h.typeText("app")
	h.key(keySpace)
	h.key(keyEnter)
	if got := strings.Join(saved, ","); got != "activity,thread-name,project-name,app-name" {
		t.Fatalf("saved %q", got)
	}
	if got := h.m.windowTitle(); got != "project | gocodex" {
		t.Errorf("title %q", got)
	}
}

// /fast asks the engine for the priority tier where the model has one, and says so where
// it has none.
func TestFastTogglesServiceTier(t *testing.T) {
	h := newHarness(t, "")
	var saved []string
	h.m.setUIHost(UIHost{FastTier: func(m string) (string, bool) { return "", m == "gpt-test" },
		SaveServiceTier: func(t string) error { saved = append(saved, t); return nil }})
	h.command("/fast")
	h.command("/fast")
	ops := h.eng.takeOps()
	if len(ops) != 2 {
		t.Fatalf("ops %v", ops)
	}
	for i, want := range []string{"fast", "default"} {
		o, ok := ops[i].(protocol.OverrideTurnContextOp)
		if !ok || o.ServiceTier == nil || *o.ServiceTier != want {
			t.Errorf("op %d = %#v, want service tier %s", i, ops[i], want)
		}
	}
	if strings.Join(saved, ",") != "fast,default" {
		t.Errorf("saved %v", saved)
	}
	h.m.header.Model = "other"
	h.command("/fast")
	if ops := h.eng.takeOps(); len(ops) != 0 || !strings.Contains(h.m.tr.cells[len(h.m.tr.cells)-1].body, "Fast mode is not available for other") {
		t.Errorf("/fast without a tier: ops %v, last cell %q", ops, h.m.tr.cells[len(h.m.tr.cells)-1].body)
	}
}

// On a dumb terminal the items picker is numbered rows: a number toggles, an empty line
// saves; a line typed after it never saves by accident.
func TestPlainLineModeItemsPicker(t *testing.T) {
	eng := newFakeEngine()
	eng.onSubmit = func(op protocol.Op) {
		if _, ok := op.(protocol.ShutdownOp); ok {
			eng.events <- protocol.Event{ID: "2", Msg: protocol.ShutdownCompleteEvent{}}
			close(eng.events)
		}
	}
	saved := make(chan []string, 1)
	ps := startPlain(t, Options{Engine: eng, Header: Header{Model: "m", Cwd: "/w"},
		UI: UIHost{SaveStatusLine: func(items []string, _ bool) error { saved <- items; return nil }}})
	ps.write("/statusline\n")
	ps.waitOut("Type a row's number to toggle it, an empty line to save, or esc:")
	ps.waitOut("5. [ ] model  Current model name")
	ps.write("5\n")
	ps.waitOut("5. [x] model  Current model name")
	ps.write("\n")
	select {
	case got := <-saved:
		if strings.Join(got, ",") != "model-with-reasoning,current-dir,thread-name,model" {
			t.Errorf("saved %v", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the status line was not saved")
	}
	ps.finish()
}
