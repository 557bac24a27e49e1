package appserver_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gocodex/gocodex/internal/appserver"
	"github.com/gocodex/gocodex/internal/appserver/schematest"
	tk "github.com/gocodex/gocodex/internal/testkit"
)

// A websocket client that falls a whole queue behind a thread is hung up on, as Codex
// disconnects a websocket client whose outbound queue stays full; the thread and its other
// subscriber carry on.
func TestStalledWebsocketSubscriberIsDropped(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	w.queue, w.subQueue = 4, 16
	srv := w.server()
	w.Model.Enqueue(answer("one"))
	fast := w.connect(srv)
	id := fast.startThread(map[string]any{"cwd": w.Work})
	fast.turn(id, "first")
	fast.until("turn/completed")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow := appserver.ConnectDropSlow(ctx, srv, appserver.ClientOptions{Tap: schematest.Wrap(t), Notifications: 1})
	defer slow.Close()
	if _, err := slow.Initialize(ctx, clientInfo("slow", "1")); err != nil {
		t.Fatal(err)
	}
	if err := slow.Call(ctx, "thread/resume", map[string]any{"threadId": id}, nil); err != nil {
		t.Fatal(err)
	}

	// Many items: more notifications than both queues hold, and none in a row to merge.
	parts := []tk.Part{tk.Created()}
	for i := range 40 {
		parts = append(parts, tk.AssistantMessage(fmt.Sprintf("msg_%d", i), "x"))
	}
	parts = append(parts, tk.Completed(tk.Usage{Input: 1, Output: 1, Total: 2}))
	w.Model.Enqueue(tk.SSE(parts...))
	fast.turn(id, "many")
	fast.until("turn/completed")

	timeout := time.After(20 * time.Second)
	for {
		select {
		case n, ok := <-slow.Notifications():
			if !ok {
				return // hung up on
			}
			if n.Method == "turn/completed" {
				t.Fatal("the stalled websocket client was kept and got the whole turn")
			}
		case <-timeout:
			t.Fatal("the stalled websocket client was neither dropped nor given the turn")
		}
	}
}
