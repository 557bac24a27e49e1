package appserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocodex/gocodex/internal/appserver"
	"github.com/gocodex/gocodex/internal/appserver/schematest"
	tk "github.com/gocodex/gocodex/internal/testkit"
)

type loadResult struct {
	p50, p99    time.Duration
	samples     int
	idlePerThrd float64
	wall        time.Duration
}

// runLoad starts threads threads on one connection, runs one streamed turn on each at
// once, and measures each delta's way from the model server to the client.
func runLoad(tb testing.TB, threads, deltas int, gap time.Duration) loadResult {
	ms := tk.StampServer(tb, deltas, gap)
	w := newWorldAt(tb, tk.ConfigOptions{}, ms.URL+"/v1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Schema checks cost more than the server's own work; the load measures the server.
	c := appserver.Connect(ctx, w.Srv, appserver.ClientOptions{Notifications: 1 << 16})
	defer c.Close()
	if _, err := c.Initialize(ctx, clientInfo("load", "1")); err != nil {
		tb.Fatal(err)
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	var mu sync.Mutex
	var lat []time.Duration
	var completed atomic.Int64
	allDone := make(chan struct{})
	go func() {
		for n := range c.Notifications() {
			switch n.Method {
			case "item/agentMessage/delta":
				now := time.Now()
				var p struct {
					Delta string `json:"delta"`
				}
				_ = json.Unmarshal(n.Params, &p)
				mu.Lock()
				lat = append(lat, tk.StampLatencies(p.Delta, now)...)
				mu.Unlock()
			case "turn/completed":
				if completed.Add(1) == int64(threads) {
					close(allDone)
				}
			}
		}
	}()

	ids := make([]string, threads)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res struct {
				Thread struct {
					ID string `json:"id"`
				} `json:"thread"`
			}
			if err := c.Call(ctx, "thread/start", map[string]any{"cwd": w.Work, "ephemeral": true}, &res); err != nil {
				tb.Error(err)
			}
			ids[i] = res.Thread.ID
		}()
	}
	wg.Wait()
	start := time.Now()
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Call(ctx, "turn/start", map[string]any{"threadId": id, "input": []map[string]any{{"type": "text", "text": "go"}}}, nil); err != nil {
				tb.Error(err)
			}
		}()
	}
	wg.Wait()
	select {
	case <-allDone:
	case <-time.After(60 * time.Second):
		tb.Fatalf("only %d of %d turns completed", completed.Load(), threads)
	}
	wall := time.Since(start)
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)

	mu.Lock()
	defer mu.Unlock()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) == 0 {
		tb.Fatal("no deltas measured")
	}
	return loadResult{
		p50: lat[len(lat)/2], p99: lat[len(lat)*99/100], samples: len(lat), wall: wall,
		idlePerThrd: float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(threads),
	}
}

// BenchmarkLoad200Threads: 200 threads streaming a 20-delta turn each at once in one
// server, over one connection.
//
//	go test ./internal/appserver -run '^$' -bench Load200 -benchtime 1x
func BenchmarkLoad200Threads(b *testing.B) {
	for b.Loop() {
		r := runLoad(b, 200, 20, 5*time.Millisecond)
		b.ReportMetric(float64(r.p50.Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(r.p99.Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(r.samples), "deltas")
		b.ReportMetric(r.idlePerThrd/1024, "KiB/idle-thread")
		b.ReportMetric(r.wall.Seconds()*1000, "wall-ms")
	}
}

// floodServer streams one message of n one-byte deltas as fast as it can; done receives a
// value when a response has been written out completely.
func floodServer(tb testing.TB, n int) (*httptest.Server, <-chan struct{}) {
	done := make(chan struct{}, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		e := tk.TextDelta("x")
		frame := []byte(fmt.Sprintf("event: %s\ndata: %s\n\n", e.Type, e.Data))
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", tk.Created().Type, tk.Created().Data)
		for i := 0; i < n; i++ {
			if _, err := w.Write(frame); err != nil {
				return
			}
		}
		for _, e := range []tk.Event{tk.AssistantMessage("msg_1", strings.Repeat("x", n)), tk.Completed(tk.Usage{Input: 1, Output: 1, Total: 2})} {
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.Type, e.Data)
		}
		w.(http.Flusher).Flush()
		done <- struct{}{}
	}))
	tb.Cleanup(srv.Close)
	return srv, done
}

// A client that stops reading while a turn streams gets backpressure: the connection's
// queue stays at its bound, its queue of the thread's notifications (and the engine's
// queue, when the pump lags) coalesces the deltas it cannot deliver, and once the client
// reads again every byte of the message arrives, in far fewer notifications.
func TestStalledClientBackpressure(t *testing.T) {
	const deltas = 100000
	ms, finished := floodServer(t, deltas)
	w := newWorldAt(t, tk.ConfigOptions{}, ms.URL+"/v1")
	w.queue = 16
	w.Srv = w.server()
	conns := make(chan *appserver.Conn, 1)
	w.Srv.Handle("test/conn", appserver.TypedOptional(func(ctx context.Context, c *appserver.Conn, _ json.RawMessage) (bool, error) {
		conns <- c
		return true, nil
	}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := appserver.Connect(ctx, w.Srv, appserver.ClientOptions{Notifications: 4, Tap: schematest.Wrap(t).Unschematized("test/")})
	defer c.Close()
	if _, err := c.Initialize(ctx, clientInfo("slow", "1")); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "test/conn", nil, nil); err != nil {
		t.Fatal(err)
	}
	sc := <-conns
	var th struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	if err := c.Call(ctx, "thread/start", map[string]any{"cwd": w.Work, "ephemeral": true}, &th); err != nil {
		t.Fatal(err)
	}
	// The schema checker compiles each method's schema when it first sees it: do that now,
	// so the heap measured below is the server's.
	v := schematest.ForTest(t)
	for _, m := range []string{"thread/status/changed", "turn/started", "item/started", "item/completed", "item/agentMessage/delta",
		"thread/tokenUsage/updated", "account/rateLimits/updated", "turn/completed"} {
		_ = v.Validate(schematest.ServerNotificationParams, m, nil)
	}
	_ = v.Validate(schematest.ClientRequestResult, "turn/start", nil)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := c.Call(ctx, "turn/start", map[string]any{"threadId": th.Thread.ID, "input": []map[string]any{{"type": "text", "text": "go"}}}, nil); err != nil {
		t.Fatal(err)
	}
	// The client reads nothing now; the model streams everything and the thread finishes
	// the turn without waiting for it (another client watches).
	<-finished
	for sc.QueueLen() < w.queue {
		runtime.Gosched()
	}
	watcher := appserver.Connect(ctx, w.Srv, appserver.ClientOptions{Tap: schematest.Wrap(t)})
	defer watcher.Close()
	if _, err := watcher.Initialize(ctx, clientInfo("watcher", "1")); err != nil {
		t.Fatal(err)
	}
	for {
		var read struct {
			Thread struct {
				Status struct {
					Type string `json:"type"`
				} `json:"status"`
			} `json:"thread"`
		}
		if err := watcher.Call(ctx, "thread/read", map[string]any{"threadId": th.Thread.ID}, &read); err != nil {
			t.Fatal(err)
		}
		if read.Thread.Status.Type == "idle" {
			break
		}
		runtime.Gosched()
	}
	runtime.GC()
	runtime.GC()
	var stalled runtime.MemStats
	runtime.ReadMemStats(&stalled)

	if q := sc.QueueLen(); q > w.queue {
		t.Errorf("outgoing queue %d over its bound %d", q, w.queue)
	}
	// Unbounded, 100000 delta frames of ~190 bytes would hold ~19 MB; coalesced, the text is
	// 100 KB (plus what the engine is still parsing when the server is done).
	if grew := int64(stalled.HeapAlloc) - int64(before.HeapAlloc); grew > 8<<20 {
		t.Errorf("heap grew %d bytes while the client was stalled", grew)
	}

	var text strings.Builder
	frames := 0
	for n := range c.Notifications() {
		if n.Method == "item/agentMessage/delta" {
			var p struct {
				Delta string `json:"delta"`
			}
			_ = json.Unmarshal(n.Params, &p)
			text.WriteString(p.Delta)
			frames++
		}
		if n.Method == "turn/completed" {
			break
		}
	}
	if text.Len() != deltas {
		t.Errorf("received %d bytes of deltas, want %d", text.Len(), deltas)
	}
	if frames >= deltas {
		t.Errorf("%d delta notifications for %d deltas: nothing was coalesced", frames, deltas)
	}
	t.Logf("%d deltas arrived in %d notifications; queue %d; heap +%d KiB while stalled", deltas, frames, w.queue,
		(int64(stalled.HeapAlloc)-int64(before.HeapAlloc))/1024)
}
