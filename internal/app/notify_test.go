package app

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gocodex/gocodex/protocol"
)

// recordingRecorder is a thread recorder that keeps what it is given.
type recordingRecorder struct{ events []string }

func (r *recordingRecorder) RecordItems([]protocol.ResponseItem) error { return nil }
func (r *recordingRecorder) RecordEvent(ev protocol.Event) error {
	r.events = append(r.events, ev.Msg.EventType())
	return nil
}
func (r *recordingRecorder) Flush() error { return nil }

func TestTurnNotifierRunsProgramPerTurn(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "args")
	script := filepath.Join(dir, "notify.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" >> "+out+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	inner := &recordingRecorder{}
	var running sync.WaitGroup
	earlier := []protocol.EventMsg{protocol.UserMessageEvent{Message: "from before the resume"}}
	n := newTurnNotifier(inner, []string{script, "a b"}, "codex-tui", "", "/work", earlier, slog.New(slog.DiscardHandler), &running)
	last := "done"
	for _, m := range []protocol.EventMsg{
		protocol.SessionConfiguredEvent{SessionID: "thread-1"},
		protocol.UserMessageEvent{Message: `say "hi" <now>`},
		protocol.TurnCompleteEvent{TurnID: "turn-1", LastAgentMessage: &last},
		protocol.TurnCompleteEvent{TurnID: "turn-2"},
	} {
		if err := n.RecordEvent(protocol.Event{ID: "1", Msg: m}); err != nil {
			t.Fatal(err)
		}
	}
	running.Wait()
	if len(inner.events) != 4 {
		t.Errorf("the wrapped recorder got %v", inner.events)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := string(data)
	for _, want := range []string{
		"a b\n" + `{"type":"agent-turn-complete","thread-id":"thread-1","turn-id":"turn-1","cwd":"/work","client":"codex-tui","input-messages":["from before the resume","say \"hi\" <now>"],"last-assistant-message":"done"}` + "\n",
		`{"type":"agent-turn-complete","thread-id":"thread-1","turn-id":"turn-2","cwd":"/work","client":"codex-tui","input-messages":["from before the resume","say \"hi\" <now>"]}` + "\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("arguments lack\n%s\ngot\n%s", want, got)
		}
	}
}

func TestTurnNotifierMissingOrFailingProgramIsAWarning(t *testing.T) {
	for name, argv := range map[string][]string{
		"missing": {filepath.Join(t.TempDir(), "no-such-program")},
		"failing": {"/bin/sh", "-c", "exit 3", "sh"},
	} {
		t.Run(name, func(t *testing.T) {
			var logs bytes.Buffer
			var mu sync.Mutex
			logger := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))
			var running sync.WaitGroup
			n := newTurnNotifier(nil, argv, "", "t", "/w", nil, logger, &running)
			if err := n.RecordEvent(protocol.Event{Msg: protocol.TurnCompleteEvent{TurnID: "x"}}); err != nil {
				t.Fatalf("the turn saw the failure: %v", err)
			}
			running.Wait()
			mu.Lock()
			defer mu.Unlock()
			if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "notify program") {
				t.Errorf("log: %s", logs.String())
			}
		})
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
