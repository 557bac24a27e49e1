package mcp

import (
	"context"
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/protocol"
)

func TestRelayKeepsEventsUntilAttached(t *testing.T) {
	var r Relay
	r.Emit(protocol.McpStartupUpdateEvent{Server: "a"})
	r.Emit(protocol.McpStartupUpdateEvent{Server: "b"})
	var got []protocol.EventMsg
	r.Attach(func(ev protocol.EventMsg) { got = append(got, ev) })
	r.Emit(protocol.McpStartupCompleteEvent{Ready: []string{"a"}})
	want := []protocol.EventMsg{
		protocol.McpStartupUpdateEvent{Server: "a"},
		protocol.McpStartupUpdateEvent{Server: "b"},
		protocol.McpStartupCompleteEvent{Ready: []string{"a"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	r.Attach(nil)
	r.Emit(protocol.McpStartupUpdateEvent{Server: "late"})
	if len(got) != 3 {
		t.Errorf("event after detach delivered: %v", got)
	}
}

// logLines collects slog records' "line" attributes.
type logLines struct{ lines []string }

func (l *logLines) Enabled(context.Context, slog.Level) bool { return true }
func (l *logLines) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "line" {
			l.lines = append(l.lines, a.Value.String())
		}
		return true
	})
	return nil
}
func (l *logLines) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logLines) WithGroup(string) slog.Handler      { return l }

func TestStderrLogSplitsLines(t *testing.T) {
	h := &logLines{}
	w := &stderrLog{log: slog.New(h), server: "s"}
	for _, chunk := range []string{"one\ntw", "o\n", "three"} {
		if n, err := w.Write([]byte(chunk)); err != nil || n != len(chunk) {
			t.Fatalf("write %q: %d %v", chunk, n, err)
		}
	}
	if diff := cmp.Diff([]string{"one", "two"}, h.lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}
