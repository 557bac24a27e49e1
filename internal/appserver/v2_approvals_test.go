package appserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// Two threads on one connection ask for approval at the same time: both requests are
// outstanding together, the client answers them in reverse order, each answer is followed by
// serverRequest/resolved naming its own request, and both turns complete.
func TestConcurrentApprovals(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{ApprovalPolicy: "untrusted"})
	cl := w.connect(w.Srv)

	type asked struct {
		id     string // the approval's itemId (the call id)
		answer chan string
	}
	askedCh := make(chan asked, 2)
	cl.answer = func(method string, params json.RawMessage) any {
		var p struct {
			ItemID string `json:"itemId"`
		}
		_ = json.Unmarshal(params, &p)
		a := asked{p.ItemID, make(chan string, 1)}
		askedCh <- a
		select {
		case d := <-a.answer:
			return map[string]any{"decision": d}
		case <-time.After(20 * time.Second):
			return map[string]any{"decision": "cancel"}
		}
	}
	next := func() asked {
		t.Helper()
		select {
		case a := <-askedCh:
			return a
		case <-time.After(20 * time.Second):
			t.Fatal("no approval request")
			return asked{}
		}
	}

	idA := cl.startThread(map[string]any{"cwd": w.Work})
	idB := cl.startThread(map[string]any{"cwd": w.Work})
	// The model's answers go out in request order: thread A asks first, then thread B.
	w.Model.Enqueue(commandCall("call_a", "touch a"))
	cl.turn(idA, "touch a")
	first := next()
	w.Model.Enqueue(commandCall("call_b", "touch b"), answer("done"), answer("done"))
	cl.turn(idB, "touch b")
	second := next() // asked while the first is still unanswered
	if first.id != "call_a" || second.id != "call_b" {
		t.Fatalf("asked %s then %s, want call_a then call_b", first.id, second.id)
	}

	var ns []map[string]any
	completed := map[string]bool{}
	collect := func(method string) {
		for _, n := range cl.until(method) {
			var m map[string]any
			_ = json.Unmarshal(n.Params, &m)
			m["method"] = n.Method
			ns = append(ns, m)
			if n.Method == "turn/completed" {
				completed[m["threadId"].(string)] = true
			}
		}
	}
	// Answer B and see it resolved before answering A, so the order is the test's, not
	// the scheduler's.
	second.answer <- "accept"
	collect("serverRequest/resolved")
	first.answer <- "accept"
	for len(completed) < 2 {
		collect("turn/completed")
	}
	if !completed[idA] || !completed[idB] {
		t.Fatalf("completed turns %v, want %s and %s", completed, idA, idB)
	}
	// Server request ids count from 0 per connection: thread A's request was 0, B's 1;
	// B's answer came first.
	var resolved []map[string]any
	for _, m := range ns {
		if m["method"] == "serverRequest/resolved" {
			resolved = append(resolved, map[string]any{"threadId": m["threadId"], "requestId": m["requestId"]})
		}
	}
	want := []map[string]any{
		{"threadId": idB, "requestId": float64(1)},
		{"threadId": idA, "requestId": float64(0)},
	}
	if diff := cmp.Diff(want, resolved); diff != "" {
		t.Errorf("serverRequest/resolved (-want +got):\n%s", diff)
	}
	for _, f := range []string{"a", "b"} {
		if _, err := os.Stat(filepath.Join(w.Work, f)); err != nil {
			t.Errorf("command for %s did not run: %v", f, err)
		}
	}
}
