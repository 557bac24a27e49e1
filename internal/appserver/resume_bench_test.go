package appserver_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gocodex/gocodex/internal/appserver"
	tk "github.com/gocodex/gocodex/internal/testkit"
)

// BenchmarkThreadResume10kLines is bench/'s resume workload in process: a fresh server (a
// new app-server process there) answers thread/resume of a 10,000-line rollout, one
// recorded gocodex exec turn repeated. Only the request → reply is timed.
//
//	go test ./internal/appserver -run '^$' -bench ThreadResume10kLines
func BenchmarkThreadResume10kLines(b *testing.B) {
	w := newWorld(b, tk.ConfigOptions{})
	id := writeRepeatedRollout(b, w.Home, w.Work, 10_000)
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		srv := w.server()
		c := appserver.Connect(ctx, srv, appserver.ClientOptions{Notifications: 1 << 14})
		if _, err := c.Initialize(ctx, clientInfo("bench", "1")); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := c.Call(ctx, "thread/resume", map[string]any{"threadId": id}, nil); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		c.Close()
		_ = srv.Close(ctx)
		b.StartTimer()
	}
}

// writeRepeatedRollout writes testdata's one-turn gocodex rollout with its turn repeated to
// n lines into home's sessions, its cwd set to work, and returns the thread id.
func writeRepeatedRollout(tb testing.TB, home, work string, n int) string {
	tb.Helper()
	data, err := os.ReadFile("../host/threads/testdata/gocodex-turn.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte("/work/project"), []byte(work))
	lines := bytes.SplitAfter(bytes.TrimRight(data, "\n"), []byte("\n"))
	var out bytes.Buffer
	out.Write(lines[0])
	for k := 0; k < n; {
		for _, l := range lines[1:] {
			out.Write(bytes.TrimRight(l, "\n"))
			out.WriteByte('\n')
			k++
		}
	}
	const id = "01a252c9-6fbd-731d-9a69-9e1f00ead3b0"
	path := filepath.Join(home, "sessions", "2026", "12", "07", "rollout-2026-12-07T23-14-22-"+id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, out.Bytes(), 0o600); err != nil {
		tb.Fatal(err)
	}
	return id
}
