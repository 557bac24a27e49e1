package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// TestAppServer20MBStream streams a 20 MB answer (200,000 deltas of 100 bytes) through
// `gocodex app-server` over stdio twice: to a client that stops reading until the server's
// memory settles, and to one that reads all along. Every byte arrives in both, then
// turn/completed; the peak RSS of each run and the stalled connection's fate are logged
// (`go test ./e2e -run TestAppServer20MBStream -v`). A client silent for longer than the
// stall limit is disconnected: internal/appserver's TestSilentClientIsDisconnected.
func TestAppServer20MBStream(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 20 MB")
	}
	chunk := strings.Repeat("x", 99) + " "
	stalled := streamThroughAppServer(t, true, 200_000, chunk)
	reading := streamThroughAppServer(t, false, 200_000, chunk)
	t.Logf("20 MB answer: peak RSS %.1f MiB with a client that stopped reading (it was kept: it resumed within the %v stall limit and got the text in %d notifications), %.1f MiB with a client reading all along (%d notifications)",
		stalled.peakMiB, 60*time.Second, stalled.notes, reading.peakMiB, reading.notes)
}

type streamRun struct {
	peakMiB float64
	notes   int
}

// streamThroughAppServer streams deltas copies of chunk as one answer to a stdio client that
// reads all along or (stall) stops reading until the server's memory settles, checks that
// every byte and turn/completed arrive, and returns the server's peak RSS.
func streamThroughAppServer(t *testing.T, stall bool, deltas int, chunk string) streamRun {
	t.Helper()
	e := newEnv(t)
	chunks := make([]string, deltas)
	for i := range chunks {
		chunks[i] = chunk
	}
	e.Model.SetDefault(tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_1", chunks...), tk.Completed(tk.Usage{Input: 1, Output: int64(deltas), Total: int64(deltas) + 1})))
	p := e.startAppServerProc()
	in := p.Session.WrapWriter(p.stdin)
	sc := bufio.NewScanner(p.Session.WrapReader(p.stdout))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	next := func() map[string]any {
		t.Helper()
		if !sc.Scan() {
			t.Fatalf("app-server output ended: %v\nstderr: %s", sc.Err(), p.stderr.String())
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not JSON: %.200q", sc.Text())
		}
		return m
	}
	var text strings.Builder
	notes := 0
	collect := func(m map[string]any) {
		if m["method"] == "item/agentMessage/delta" {
			notes++
			text.WriteString(m["params"].(map[string]any)["delta"].(string))
		}
	}
	fmt.Fprintf(in, "%s\n%s\n%s\n",
		`{"id":0,"method":"initialize","params":{"clientInfo":{"name":"load","version":"1"}}}`,
		`{"method":"initialized"}`,
		`{"id":1,"method":"thread/start","params":{"cwd":`+jsonString(e.Workdir)+`}}`)
	var threadID string
	for threadID == "" {
		if m := next(); m["id"] == float64(1) {
			threadID = m["result"].(map[string]any)["thread"].(map[string]any)["id"].(string)
		}
	}
	fmt.Fprintf(in, `{"id":2,"method":"turn/start","params":{"threadId":%q,"input":[{"type":"text","text":"hi"}]}}`+"\n", threadID)
	for m := next(); m["id"] != float64(2); m = next() {
		collect(m)
	}
	pid := p.cmd.Process.Pid
	if stall {
		// Read nothing until the server's memory settles (the model's stream is consumed).
		awaitSteadyRSS(t, pid, 10, 50*time.Millisecond, time.Hour)
	}
	for {
		m := next()
		collect(m)
		if m["method"] == "turn/completed" {
			break
		}
	}
	if text.Len() != deltas*len(chunk) || text.String() != strings.Repeat(chunk, deltas) {
		t.Errorf("streamed text: %d bytes, want %d", text.Len(), deltas*len(chunk))
	}
	return streamRun{peakMiB: float64(procMemKiB(t, pid, "VmHWM")) / 1024, notes: notes}
}
