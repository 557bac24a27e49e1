package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/gocodex/gocodex/internal/appserver"
	tk "github.com/gocodex/gocodex/internal/testkit"
)

// BenchmarkAppServerWebsocket200Threads: one `gocodex app-server --listen ws://` process,
// one websocket client, 200 threads each streaming a 20-delta turn (5 ms apart) at once.
// It reports each delta's latency from the model server's write to the client's read
// (p50, p99), the server's peak RSS, and the wall time until every turn completed.
//
//	go test ./e2e -run '^$' -bench AppServerWebsocket200Threads -benchtime 1x -count 5
func BenchmarkAppServerWebsocket200Threads(b *testing.B) {
	const threads, deltas = 200, 20
	for b.Loop() {
		r := wsLoad(b, threads, deltas, 5*time.Millisecond)
		b.ReportMetric(float64(r.p50.Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(r.p99.Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(r.samples), "deltas")
		b.ReportMetric(float64(r.peakKiB)/1024, "peak-MiB")
		b.ReportMetric(r.wall.Seconds()*1000, "wall-ms")
	}
}

type wsLoadResult struct {
	p50, p99 time.Duration
	samples  int
	peakKiB  int64
	wall     time.Duration
}

func wsLoad(b *testing.B, threads, deltas int, gap time.Duration) wsLoadResult {
	b.Helper()
	e := benchEnv(b)
	tk.WriteConfig(b, e.CodexHome, tk.StampServer(b, deltas, gap).URL)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "app-server", "--listen", "ws://127.0.0.1:0")
	cmd.Dir = e.Workdir
	cmd.Env = e.environ()
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	addr := waitForListener(b, stderr)

	ws, _, err := websocket.Dial(ctx, "ws://"+addr+"/", nil)
	if err != nil {
		b.Fatal(err)
	}
	// No schema tap: the load measures the server, and schema checks cost more than it.
	c := appserver.NewClient(ctx, appserver.WebsocketFramer(ws, 64<<20), appserver.ClientOptions{Notifications: 1 << 16})
	defer c.Close()
	if _, err := c.Initialize(ctx, initParams); err != nil {
		b.Fatal(err)
	}

	var mu sync.Mutex
	var lat []time.Duration
	var completed atomic.Int64
	allDone := make(chan struct{})
	go func() { // ends when the client closes
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
		wg.Go(func() {
			var res struct {
				Thread struct {
					ID string `json:"id"`
				} `json:"thread"`
			}
			if err := c.Call(ctx, "thread/start", map[string]any{"cwd": e.Workdir, "ephemeral": true}, &res); err != nil {
				b.Error(err)
			}
			ids[i] = res.Thread.ID
		})
	}
	wg.Wait()
	start := time.Now()
	for _, id := range ids {
		wg.Go(func() {
			if err := c.Call(ctx, "turn/start", map[string]any{"threadId": id, "input": []map[string]any{{"type": "text", "text": "go"}}}, nil); err != nil {
				b.Error(err)
			}
		})
	}
	wg.Wait()
	select {
	case <-allDone:
	case <-ctx.Done():
		b.Fatalf("only %d of %d turns completed\nstderr: %s", completed.Load(), threads, stderr.String())
	}
	wall := time.Since(start)
	peak := procMemKiB(b, cmd.Process.Pid, "VmHWM")

	mu.Lock()
	defer mu.Unlock()
	if len(lat) == 0 {
		b.Fatal("no deltas measured")
	}
	slices.Sort(lat)
	return wsLoadResult{p50: lat[len(lat)/2], p99: lat[len(lat)*99/100], samples: len(lat), peakKiB: peak, wall: wall}
}

// waitForListener returns the address a websocket app-server reports on stderr.
func waitForListener(tb testing.TB, stderr interface{ String() string }) string {
	tb.Helper()
	re := regexp.MustCompile(`listening on: ws://([0-9.:]+)`)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
	}
	tb.Fatalf("websocket app-server did not report its address\nstderr: %s", stderr.String())
	return ""
}
