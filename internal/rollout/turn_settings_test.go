package rollout

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gocodex/gocodex/protocol"
)

// writeTurns records one turn per settings, each followed by an answer of answerBytes.
func writeTurns(t *testing.T, home string, answerBytes int, settings ...TurnSettings) string {
	t.Helper()
	meta := testMeta()
	at := time.Date(2026, 3, 2, 12, 0, 0, 0, time.Local)
	meta.ID = v7At(at, 1)
	r, err := Create(home, Options{Meta: meta, Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range settings {
		r.SetSettings(Settings{Model: s.Model, Effort: s.Effort})
		id := "t" + string(rune('0'+i))
		r.RecordEvent(protocol.Event{Msg: protocol.TurnStartedEvent{TurnID: id}})
		r.RecordItems([]protocol.ResponseItem{userMsg("prompt"), assistantMsg(strings.Repeat("x", answerBytes))})
		r.RecordEvent(protocol.Event{Msg: protocol.TurnCompleteEvent{TurnID: id}})
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return r.Path()
}

// The latest settings come from the last turn_context, found in the tail; the listing's
// head holds the first turn's.
func TestLatestTurnSettings(t *testing.T) {
	home := t.TempDir()
	path := writeTurns(t, home, 100, TurnSettings{"gpt-a", "high"}, TurnSettings{"gpt-b", "low"})
	got, ok := LatestTurnSettings(path)
	if !ok || got != (TurnSettings{"gpt-b", "low"}) {
		t.Fatalf("latest = %+v, %v; want gpt-b low", got, ok)
	}
	p, err := List(home, ListOptions{})
	if err != nil || len(p.Threads) != 1 {
		t.Fatalf("list: %+v %v", p, err)
	}
	if s := p.Threads[0]; s.Model != "gpt-a" || s.ReasoningEffort != "high" {
		t.Errorf("head settings = %q %q, want the first turn's gpt-a high", s.Model, s.ReasoningEffort)
	}
}

// A last turn longer than the first window is found in the larger one; one longer than
// every window is not (the caller keeps the head's), and the file is not read whole.
func TestLatestTurnSettingsLongTurns(t *testing.T) {
	path := writeTurns(t, t.TempDir(), 200<<10, TurnSettings{"gpt-a", ""}, TurnSettings{"gpt-b", "medium"})
	if got, ok := LatestTurnSettings(path); !ok || got != (TurnSettings{"gpt-b", "medium"}) {
		t.Errorf("200 KiB turn: %+v, %v; want gpt-b medium", got, ok)
	}
	path = writeTurns(t, t.TempDir(), 2<<20, TurnSettings{"gpt-a", ""}, TurnSettings{"gpt-b", ""})
	if got, ok := LatestTurnSettings(path); ok {
		t.Errorf("2 MiB turn: found %+v beyond the tail", got)
	}
}

// No turn_context, a missing file, a torn last line: no settings, no panic.
func TestLatestTurnSettingsWithout(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"empty":   "",
		"garbage": "not json\n{\"type\":\"turn_context\"",
		"torn":    `{"timestamp":"x","type":"turn_context","payload":{"model":"gpt-a"`,
	} {
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, ok := LatestTurnSettings(p); ok {
			t.Errorf("%s: %+v", name, got)
		}
	}
	if _, ok := LatestTurnSettings(dir + "/missing"); ok {
		t.Error("missing file has settings")
	}
}
