package appserver_test

import (
	"context"
	"encoding/json"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/gocodex/gocodex/internal/appserver"
	"github.com/gocodex/gocodex/internal/appserver/schematest"
	"github.com/gocodex/gocodex/internal/config"
)

// A client that stops reading makes Notify block once the connection's queue is full: the
// sender (a thread's event pump) stops, instead of the queue growing without bound.
func TestSlowClientBackpressure(t *testing.T) {
	const queue = 8
	srv := appserver.New(appserver.Options{
		Config:        &config.Config{CodexHome: t.TempDir()},
		Getenv:        func(string) string { return "" },
		Platform:      &testPlatform,
		OutgoingQueue: queue,
	})
	var sent atomic.Int64
	flooded := make(chan error, 1)
	pump := func(c *appserver.Conn) { // lives with the connection
		for {
			err := c.Notify(c.Context(), "item/agentMessage/delta", map[string]string{"threadId": "t", "turnId": "u", "itemId": "i", "delta": "x"})
			if err != nil {
				flooded <- err
				return
			}
			sent.Add(1)
		}
	}
	conns := make(chan *appserver.Conn, 1)
	srv.Handle("test/flood", appserver.TypedOptional(func(ctx context.Context, c *appserver.Conn, _ json.RawMessage) (bool, error) {
		// The pump starts once the answer is queued: a client that reads nothing would
		// otherwise never see the answer behind a full queue.
		context.AfterFunc(ctx, func() { c.Go(func() { pump(c) }) })
		conns <- c
		return true, nil
	}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The client buffers a single notification and the test never reads it.
	c := appserver.Connect(ctx, srv, appserver.ClientOptions{Tap: schematest.Wrap(t).Unschematized("test/"), Notifications: 1})
	if _, err := c.Initialize(ctx, clientInfo("t", "1")); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "test/flood", nil, nil); err != nil {
		t.Fatal(err)
	}
	sc := <-conns
	for sc.QueueLen() < queue {
		runtime.Gosched()
	}
	// queue + the frame the writer holds + the pipe + the client's read loop + its buffer.
	if n := sent.Load(); n > queue+4 {
		t.Errorf("%d notifications accepted for a client that reads nothing (queue %d)", n, queue)
	}
	c.Close()
	if err := <-flooded; err == nil {
		t.Error("the pump kept going after the client left")
	}
}
