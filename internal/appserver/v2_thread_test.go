package appserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// The first turn's notifications, in Codex 0.169's order (checked against its app-server on
// the same script).
var wantFirstTurn = []string{
	"thread/status/changed", "turn/started",
	"item/started", "item/completed", // userMessage
	"item/started", "item/agentMessage/delta", "item/agentMessage/delta", "item/completed", // agentMessage
	"thread/tokenUsage/updated", "account/rateLimits/updated",
	"thread/status/changed", "turn/completed",
}

func TestTwoTurnsStream(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	w.Model.Enqueue(streamed("Hel", "lo"), streamed("again"))
	cl := w.connect(w.Srv)
	id := cl.startThread(map[string]any{"cwd": w.Work})

	cl.turn(id, "hi")
	got := cl.until("turn/completed")
	if diff := cmp.Diff(wantFirstTurn, methods(got)); diff != "" {
		t.Errorf("first turn notifications (-want +got):\n%s", diff)
	}
	var deltas string
	for _, d := range find(got, "item/agentMessage/delta") {
		deltas += d["delta"].(string)
	}
	if deltas != "Hello" {
		t.Errorf("deltas = %q, want Hello", deltas)
	}
	if s := turnStatus(t, got); s != "completed" {
		t.Errorf("status = %s", s)
	}

	cl.turn(id, "more")
	got = cl.until("turn/completed")
	if d := find(got, "item/agentMessage/delta"); len(d) != 1 || d[0]["delta"] != "again" {
		t.Errorf("second turn deltas = %v", d)
	}

	var read struct {
		Thread struct {
			Preview string `json:"preview"`
			Turns   []struct {
				Items []map[string]any `json:"items"`
			} `json:"turns"`
		} `json:"thread"`
	}
	cl.call("thread/read", map[string]any{"threadId": id, "includeTurns": true}, &read)
	if len(read.Thread.Turns) != 2 || read.Thread.Preview != "hi" {
		t.Fatalf("thread/read = %+v", read.Thread)
	}
	if it := read.Thread.Turns[0].Items; len(it) != 2 || it[1]["text"] != "Hello" {
		t.Errorf("first turn items = %v", it)
	}
}

func TestApprovals(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{ApprovalPolicy: "untrusted"})
	cl := w.connect(w.Srv)
	id := cl.startThread(map[string]any{"cwd": w.Work})

	cases := []struct {
		decision string
		file     string
		wantRan  bool
		wantItem string
	}{
		{"accept", "a", true, "completed"},
		{"decline", "b", false, "declined"},
		{"acceptForSession", "c", true, "completed"},
	}
	for i, tc := range cases {
		t.Run(tc.decision, func(t *testing.T) {
			cl.answer = func(method string, _ json.RawMessage) any {
				return map[string]any{"decision": tc.decision}
			}
			w.Model.Enqueue(commandCall("call_"+tc.file, "touch "+tc.file), answer("done"))
			cl.turn(id, "touch "+tc.file)
			got := cl.until("turn/completed")
			ms := methods(got)
			req := -1
			for j, m := range ms {
				if m == "serverRequest/resolved" {
					req = j
				}
			}
			if req < 0 {
				t.Fatalf("no serverRequest/resolved in %v", ms)
			}
			if r := find(got, "serverRequest/resolved")[0]["requestId"]; r != float64(i) {
				t.Errorf("requestId = %v, want %d", r, i)
			}
			var item map[string]any
			done := -1
			for j, n := range got {
				if n.Method != "item/completed" {
					continue
				}
				if it := find(got[j:j+1], "item/completed")[0]["item"].(map[string]any); it["type"] == "commandExecution" {
					item, done = it, j
				}
			}
			if done < req {
				t.Errorf("the command item completed before serverRequest/resolved: %v", ms)
			}
			if item == nil || item["status"] != tc.wantItem {
				t.Errorf("command item = %v, want status %s", item, tc.wantItem)
			}
			_, err := os.Stat(filepath.Join(w.Work, tc.file))
			if ran := err == nil; ran != tc.wantRan {
				t.Errorf("ran = %v, want %v", ran, tc.wantRan)
			}
		})
	}
	// Accepted for the session: the same command runs again without asking.
	before := len(cl.requests)
	w.Model.Enqueue(commandCall("call_c2", "touch c"), answer("again"))
	cl.turn(id, "touch c again")
	cl.until("turn/completed")
	if len(cl.requests) != before {
		t.Errorf("asked again after acceptForSession: %v", cl.requests[before:])
	}
}

func TestInterrupt(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	w.Model.Enqueue(tk.Stall(2, tk.Created(), tk.TextDelta("thinking"), tk.Completed(tk.Usage{})))
	cl := w.connect(w.Srv)
	id := cl.startThread(map[string]any{"cwd": w.Work})
	turn := cl.turn(id, "long one")
	cl.until("item/agentMessage/delta")
	cl.call("turn/interrupt", map[string]any{"threadId": id, "turnId": turn}, nil)
	got := cl.until("turn/completed")
	if s := turnStatus(t, got); s != "interrupted" {
		t.Errorf("status = %s, want interrupted", s)
	}
}

func TestResumeForkListArchive(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	w.Model.Enqueue(answer("first answer"))
	cl := w.connect(w.Srv)
	id := cl.startThread(map[string]any{"cwd": w.Work})
	cl.turn(id, "remember this")
	cl.until("turn/completed")
	cl.c.Close()

	// A new server over the same CODEX_HOME: the thread comes back from its rollout.
	srv2 := w.server()
	cl2 := w.connect(srv2)
	var list struct {
		Data []struct {
			ID      string `json:"id"`
			Preview string `json:"preview"`
		} `json:"data"`
	}
	cl2.call("thread/list", map[string]any{}, &list)
	if len(list.Data) != 1 || list.Data[0].ID != id || list.Data[0].Preview != "remember this" {
		t.Fatalf("thread/list = %+v", list.Data)
	}
	var resumed struct {
		Thread struct {
			ID    string `json:"id"`
			Turns []any  `json:"turns"`
		} `json:"thread"`
	}
	cl2.call("thread/resume", map[string]any{"threadId": id}, &resumed)
	if resumed.Thread.ID != id || len(resumed.Thread.Turns) != 1 {
		t.Fatalf("resume = %+v", resumed.Thread)
	}
	w.Model.Enqueue(answer("second answer"))
	cl2.turn(id, "what did I say?")
	cl2.until("turn/completed")
	reqs := w.Model.Requests()
	if last := string(reqs[len(reqs)-1].Body); !json.Valid([]byte(last)) || !containsAll(last, "remember this", "first answer") {
		t.Errorf("resumed request lacks the history: %s", last)
	}

	var forked struct {
		Thread struct {
			ID           string  `json:"id"`
			ForkedFromID *string `json:"forkedFromId"`
		} `json:"thread"`
	}
	cl2.call("thread/fork", map[string]any{"threadId": id}, &forked)
	if forked.Thread.ID == id || forked.Thread.ForkedFromID == nil || *forked.Thread.ForkedFromID != id {
		t.Fatalf("fork = %+v", forked.Thread)
	}
	var loaded struct {
		Data []string `json:"data"`
	}
	cl2.call("thread/loaded/list", map[string]any{}, &loaded)
	if len(loaded.Data) != 2 {
		t.Errorf("loaded = %v", loaded.Data)
	}

	cl2.call("thread/archive", map[string]any{"threadId": id}, nil)
	cl2.until("thread/archived")
	cl2.call("thread/list", map[string]any{}, &list)
	for _, th := range list.Data {
		if th.ID == id {
			t.Errorf("archived thread still listed")
		}
	}
	cl2.call("thread/list", map[string]any{"archived": true}, &list)
	if len(list.Data) != 1 || list.Data[0].ID != id {
		t.Errorf("archived list = %+v", list.Data)
	}
	cl2.call("thread/unarchive", map[string]any{"threadId": id}, nil)
	cl2.call("thread/delete", map[string]any{"threadId": id}, nil)
	if e := cl2.callErr("thread/read", map[string]any{"threadId": id}); e.Code != -32600 {
		t.Errorf("read after delete = %v", e)
	}
}

func TestEphemeralWritesNoRollout(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	w.Model.Enqueue(answer("ok"))
	cl := w.connect(w.Srv)
	id := cl.startThread(map[string]any{"cwd": w.Work, "ephemeral": true})
	cl.turn(id, "hi")
	cl.until("turn/completed")
	n := 0
	_ = filepath.Walk(filepath.Join(w.Home, "sessions"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n++
		}
		return nil
	})
	if n != 0 {
		t.Errorf("%d rollout files for an ephemeral thread", n)
	}
}

func TestUnknownThreadAndBadParams(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)
	if e := cl.callErr("turn/start", map[string]any{"threadId": "01a20277-31a1-77ac-b69d-10b17518f53a", "input": []any{}}); e.Code != -32600 {
		t.Errorf("unknown thread: %v", e)
	}
	if e := cl.callErr("turn/start", map[string]any{"threadId": 5}); e.Code != -32600 || e.Message != "Invalid request: invalid type: integer `5`, expected a string" {
		t.Errorf("bad params: %v", e)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !contains([]string{s}, x) {
			return false
		}
	}
	return true
}
