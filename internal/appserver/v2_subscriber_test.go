package appserver_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

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
	// Resuming a loaded thread is followed by its token usage and goal, after the answer as
	// in Codex 0.169; they are read before the turn so only the turn's flow is compared.
	slow.until("thread/goal/cleared")

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

// A stdio or in-process client that leaves a thread's notifications unread for
// StalledClientTimeout once its queue is full is disconnected, and the log says why; the
// thread goes on for its other subscriber.
func TestSilentClientIsDisconnected(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	w.queue, w.subQueue, w.stallTimeout = 2, 8, 300*time.Millisecond
	var logged syncBuffer
	w.logger = slog.New(slog.NewTextHandler(&logged, nil))
	srv := w.server()
	w.Model.Enqueue(answer("one"))
	fast := w.connect(srv)
	id := fast.startThread(map[string]any{"cwd": w.Work})
	fast.turn(id, "first")
	fast.until("turn/completed")

	silent := w.connectBuffered(srv, 1)
	silent.call("thread/resume", map[string]any{"threadId": id}, nil)
	// Many items: item/started and item/completed are never merged, so its queue fills.
	var parts []tk.Part
	parts = append(parts, tk.Created())
	for i := range 40 {
		parts = append(parts, tk.AssistantMessage(fmt.Sprintf("msg_%d", i), "part"))
	}
	parts = append(parts, tk.Completed(tk.Usage{Input: 1, Output: 1, Total: 2}))
	w.Model.Enqueue(tk.SSE(parts...))
	fast.turn(id, "many")
	fast.until("turn/completed")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logged.String(), "closing a client that stopped reading") {
		if time.Now().After(deadline) {
			t.Fatalf("no disconnect logged:\n%s", logged.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The client reads again: what was in flight arrives, then the connection's end.
	timeout := time.After(10 * time.Second)
	for open := true; open; {
		select {
		case _, open = <-silent.c.Notifications():
		case <-timeout:
			t.Fatal("the silent client's connection did not end")
		}
	}
	<-silent.c.Done()
}

// syncBuffer is a bytes.Buffer safe for a logger's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
