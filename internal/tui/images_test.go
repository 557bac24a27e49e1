package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/protocol"
)

// -i/--image without a prompt sends the files alone at once, as Codex does; with a prompt
// they go before its text.
func TestStartImagesAttachToFirstMessage(t *testing.T) {
	h := newHarness(t, "")
	h.m.images = []string{"shot.png", "/abs/two.png"}
	h.send(h.m.Init()())
	checkOps(t, h, []protocol.Op{protocol.UserInputOp{Items: []protocol.InputItem{
		{Type: protocol.InputLocalImage, Path: "shot.png"},
		{Type: protocol.InputLocalImage, Path: "/abs/two.png"},
	}}})
	if !strings.Contains(h.screen(), "› [Image #1] [Image #2]") {
		t.Errorf("the images are not in the transcript:\n%s", h.screen())
	}

	h = newHarness(t, "what is this?")
	h.m.images = []string{"shot.png"}
	h.send(h.m.Init()())
	checkOps(t, h, []protocol.Op{
		protocol.UserInputOp{Items: []protocol.InputItem{{Type: protocol.InputLocalImage, Path: "shot.png"}, protocol.TextInput("what is this?")}},
		protocol.AddToHistoryOp{Text: "what is this?"},
	})
}

// A pasted path of an image file (what a drag and drop pastes) becomes an [Image #N]
// placeholder and the file goes with the message; other pastes stay text, and an image
// whose placeholder was deleted is not sent.
func TestPastedImagePathAttaches(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "my shot.png"), []byte("\x89PNG"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, "")
	h.m.header.Cwd = dir
	h.send(tea.PasteMsg{Content: "'" + filepath.Join(dir, "my shot.png") + "'"})
	h.send(tea.PasteMsg{Content: "notes.txt"})
	if got := h.m.input.Value(); got != "[Image #1] notes.txt" {
		t.Fatalf("composer = %q", got)
	}
	h.typeText(" describe")
	h.key(keyEnter)
	text := "[Image #1] notes.txt describe"
	checkOps(t, h, []protocol.Op{
		protocol.UserInputOp{Items: []protocol.InputItem{{Type: protocol.InputLocalImage, Path: filepath.Join(dir, "my shot.png")}, protocol.TextInput(text)}},
		protocol.AddToHistoryOp{Text: text},
	})
	h.event(protocol.TurnCompleteEvent{TurnID: "t1"})

	// A relative path is the thread's; the placeholder deleted before sending drops it.
	h.send(tea.PasteMsg{Content: "my\\ shot.png"})
	if got := h.m.input.Value(); got != "[Image #1] " {
		t.Fatalf("composer = %q", got)
	}
	h.m.input.SetValue("never mind")
	h.key(keyEnter)
	checkOps(t, h, userInput("never mind"))
}
