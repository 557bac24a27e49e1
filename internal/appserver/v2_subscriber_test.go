package appserver_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/jsonrpc"
	tk "github.com/gocodex/gocodex/internal/testkit"
)

// A subscriber that stops reading holds back only itself: the other subscriber of the same
// thread sees the whole turn while the stalled one has read nothing. When it reads again it
// gets every notification, its deltas merged into fewer, longer ones with the same text.
func TestStalledSubscriberStallsOnlyItself(t *testing.T) {
	const chunks = 300
	w := newWorld(t, tk.ConfigOptions{})
	w.queue, w.subQueue = 4, 64
	srv := w.server()
	w.Model.Enqueue(answer("one"))
	fast := w.connect(srv)
	id := fast.startThread(map[string]any{"cwd": w.Work})
	fast.turn(id, "first")
	fast.until("turn/completed")

	// Subscribed, then it reads nothing: its client buffers one notification.
	slow := w.connectBuffered(srv, 1)
	slow.call("thread/resume", map[string]any{"threadId": id}, nil)

	parts := make([]string, chunks)
	for i := range parts {
		parts[i] = string(rune('a' + i%26))
	}
	w.Model.Enqueue(streamed(parts...))
	fast.turn(id, "stream")
	fastGot := fast.until("turn/completed")

	slowGot := slow.until("turn/completed")
	text := func(ns []*jsonrpc.Notification) (string, int) {
		var b strings.Builder
		ds := find(ns, "item/agentMessage/delta")
		for _, d := range ds {
			b.WriteString(d["delta"].(string))
		}
		return b.String(), len(ds)
	}
	want := strings.Join(parts, "")
	// The fast subscriber may see merged deltas too (the engine's queue and its own
	// coalesce whenever it is momentarily behind): only the text is certain.
	fastText, _ := text(fastGot)
	slowText, slowN := text(slowGot)
	if fastText != want {
		t.Errorf("fast subscriber's text = %q, want %q", fastText, want)
	}
	if slowText != want {
		t.Errorf("stalled subscriber's text = %q, want %q", slowText, want)
	}
	if slowN >= chunks {
		t.Errorf("stalled subscriber got %d deltas: none merged", slowN)
	}
	// Everything but the deltas arrives as it did for the other subscriber.
	turnMethods := func(ns []*jsonrpc.Notification) []string {
		var out []string
		started := false
		for _, m := range methods(ns) {
			started = started || m == "turn/started"
			if started && m != "item/agentMessage/delta" {
				out = append(out, m)
			}
		}
		return out
	}
	if diff := cmp.Diff(turnMethods(fastGot), turnMethods(slowGot)); diff != "" {
		t.Errorf("stalled subscriber's notifications (-fast +stalled):\n%s", diff)
	}
}
