package appserver_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/gocodex/gocodex/internal/appserver"
	tk "github.com/gocodex/gocodex/internal/testkit"
)

// BenchmarkFanOut is the event fan-out: one thread streams a 2,000-delta answer to every
// connection subscribed to it (the one that started it and the others that resumed it), each
// through its own queue and drainer. It reports the delta notifications delivered per
// second, all subscribers together (a subscriber that falls behind gets merged deltas, which
// count once).
//
//	go test ./internal/appserver -run '^$' -bench FanOut
func BenchmarkFanOut(b *testing.B) {
	for _, subs := range []int{1, 8} {
		b.Run(fmt.Sprintf("subscribers=%d", subs), func(b *testing.B) { benchFanOut(b, subs) })
	}
}

func benchFanOut(b *testing.B, subs int) {
	const deltas = 2000
	chunks := make([]string, deltas)
	for i := range chunks {
		chunks[i] = "tok "
	}
	w := newWorld(b, tk.ConfigOptions{})
	w.Model.SetDefault(streamed(chunks...))
	srv := w.server()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// No schema tap: the benchmark measures the server's fan-out, not the checker.
	clients := make([]*appserver.Client, subs)
	for i := range clients {
		clients[i] = appserver.Connect(ctx, srv, appserver.ClientOptions{Notifications: 1 << 15})
		defer clients[i].Close()
		if _, err := clients[i].Initialize(ctx, clientInfo("fanout", "1")); err != nil {
			b.Fatal(err)
		}
	}
	var th struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	if err := clients[0].Call(ctx, "thread/start", map[string]any{"cwd": w.Work, "ephemeral": true}, &th); err != nil {
		b.Fatal(err)
	}
	for _, c := range clients[1:] {
		if err := c.Call(ctx, "thread/resume", map[string]any{"threadId": th.Thread.ID}, nil); err != nil {
			b.Fatal(err)
		}
	}
	got := 0
	for b.Loop() {
		var wg sync.WaitGroup
		counts := make([]int, subs)
		for i, c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := range c.Notifications() {
					switch n.Method {
					case "item/agentMessage/delta":
						counts[i]++
					case "turn/completed":
						return
					}
				}
			}()
		}
		if err := clients[0].Call(ctx, "turn/start", map[string]any{"threadId": th.Thread.ID,
			"input": []map[string]any{{"type": "text", "text": "go"}}}, nil); err != nil {
			b.Fatal(err)
		}
		wg.Wait()
		for _, n := range counts {
			got += n
		}
	}
	b.ReportMetric(float64(got)/b.Elapsed().Seconds(), "deltas/s")
}
