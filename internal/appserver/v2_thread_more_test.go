package appserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

func TestShellCommand(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)
	id := cl.startThread(map[string]any{"cwd": w.Work})
	cl.call("thread/shellCommand", map[string]any{"threadId": id, "command": "echo hi"}, nil)
	got := cl.until("turn/completed")
	want := []string{"thread/status/changed", "turn/started", "item/started", "item/commandExecution/outputDelta", "item/completed", "thread/status/changed", "turn/completed"}
	if diff := cmp.Diff(want, methods(got)); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
	item := find(got, "item/completed")[0]["item"].(map[string]any)
	if item["source"] != "userShell" || item["aggregatedOutput"] != "hi\n" || item["exitCode"] != float64(0) {
		t.Errorf("item = %v", item)
	}
	if e := cl.callErr("thread/shellCommand", map[string]any{"threadId": id, "command": "  "}); e.Code != -32600 {
		t.Errorf("empty command: %v", e)
	}
	// The model sees the command and its output on the next turn.
	w.Model.Enqueue(answer("seen"))
	cl.turn(id, "what did I run?")
	cl.until("turn/completed")
	if body := string(w.Model.Requests()[0].Body); !strings.Contains(body, "<user_shell_command>") || !strings.Contains(body, "echo hi") {
		t.Errorf("the next request does not carry the user's command: %.600s", body)
	}
}

func TestNameTurnsUnsubscribe(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	w.Model.Enqueue(answer("one"), answer("two"))
	cl := w.connect(w.Srv)
	id := cl.startThread(map[string]any{"cwd": w.Work})
	cl.call("thread/name/set", map[string]any{"threadId": id, "name": "my thread"}, nil)
	if n := find(cl.until("thread/name/updated"), "thread/name/updated"); n[0]["threadName"] != "my thread" {
		t.Errorf("name/updated = %v", n)
	}
	first := cl.turn(id, "a")
	cl.until("turn/completed")
	second := cl.turn(id, "b")
	cl.until("turn/completed")
	var page struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		NextCursor *string `json:"nextCursor"`
	}
	cl.call("thread/turns/list", map[string]any{"threadId": id, "limit": 1}, &page)
	if len(page.Data) != 1 || page.Data[0].ID != second || page.NextCursor == nil {
		t.Fatalf("first page = %+v", page)
	}
	cl.call("thread/turns/list", map[string]any{"threadId": id, "limit": 1, "cursor": *page.NextCursor}, &page)
	if len(page.Data) != 1 || page.Data[0].ID != first || page.NextCursor != nil {
		t.Errorf("second page = %+v", page)
	}
	var un struct {
		Status string `json:"status"`
	}
	cl.call("thread/unsubscribe", map[string]any{"threadId": id}, &un)
	if un.Status != "unsubscribed" {
		t.Errorf("unsubscribe = %s", un.Status)
	}
	// The thread stays loaded for the unload delay (see TestThreadUnload).
	cl.call("thread/unsubscribe", map[string]any{"threadId": id}, &un)
	if un.Status != "notSubscribed" {
		t.Errorf("second unsubscribe = %s", un.Status)
	}
}

func TestSteerAndCompact(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	w.Model.Enqueue(tk.Stall(2, tk.Created(), tk.TextDelta("working"), tk.Completed(tk.Usage{})))
	cl := w.connect(w.Srv)
	id := cl.startThread(map[string]any{"cwd": w.Work})
	if e := cl.callErr("turn/steer", map[string]any{"threadId": id, "expectedTurnId": "x", "input": []any{}}); e.Code != -32600 {
		t.Errorf("steer without a turn: %v", e)
	}
	turn := cl.turn(id, "go")
	cl.until("item/agentMessage/delta")
	if e := cl.callErr("turn/steer", map[string]any{"threadId": id, "expectedTurnId": "other", "input": []any{}}); e.Code != -32600 {
		t.Errorf("steer with the wrong turn: %v", e)
	}
	var st struct {
		TurnID string `json:"turnId"`
	}
	cl.call("turn/steer", map[string]any{"threadId": id, "expectedTurnId": turn, "input": []map[string]any{{"type": "text", "text": "also this"}}}, &st)
	if st.TurnID != turn {
		t.Errorf("steer answered %q, want %q", st.TurnID, turn)
	}
	cl.call("turn/interrupt", map[string]any{"threadId": id, "turnId": turn}, nil)
	cl.until("turn/completed")

	w.Model.Enqueue(answer("the summary"))
	cl.call("thread/compact/start", map[string]any{"threadId": id}, nil)
	got := cl.until("turn/completed")
	var kinds []string
	for _, n := range find(got, "item/completed") {
		kinds = append(kinds, n["item"].(map[string]any)["type"].(string))
	}
	if !contains(kinds, "contextCompaction") {
		t.Errorf("compaction items = %v (notifications %v)", kinds, methods(got))
	}
}

// Unknown keys are said at every thread start, after thread/started, as a warning in Codex
// 0.169's words (the startup configWarning is the face's, cmd/gocodex).
func TestUnknownConfigKeyWarnsAtEveryThreadStart(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{Extra: "not_a_codex_key = 1\n"})
	cl := w.connect(w.Srv)
	for range 2 {
		var res struct {
			Thread struct {
				ID string `json:"id"`
			} `json:"thread"`
		}
		cl.call("thread/start", map[string]any{"cwd": w.Work}, &res)
		ns := cl.until("warning")
		if got := find(ns, "configWarning"); len(got) != 0 {
			t.Errorf("configWarning at thread start: %v", got)
		}
		warn := find(ns, "warning")[0]
		want := "Codex is ignoring 1 unrecognized configuration setting. Check for typos or deprecated settings.\n  user (" +
			filepath.Join(w.Home, "config.toml") + "): `not_a_codex_key` is ignored."
		if warn["threadId"] != res.Thread.ID || warn["message"] != want {
			t.Errorf("warning = %v, want %q for thread %s", warn, want, res.Thread.ID)
		}
	}
}

func TestApprovalAmendmentAndCancel(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{ApprovalPolicy: "untrusted"})
	cl := w.connect(w.Srv)
	id := cl.startThread(map[string]any{"cwd": w.Work})

	cl.answer = func(string, json.RawMessage) any {
		return map[string]any{"decision": map[string]any{"acceptWithExecpolicyAmendment": map[string]any{"execpolicy_amendment": []string{"touch"}}}}
	}
	w.Model.Enqueue(commandCall("call_1", "touch amended"), answer("done"))
	cl.turn(id, "touch")
	cl.until("turn/completed")
	rules, err := os.ReadFile(filepath.Join(w.Home, "rules", "default.rules"))
	if err != nil || !strings.Contains(string(rules), `prefix_rule(pattern=["touch"], decision="allow")`) {
		t.Errorf("default.rules = %q, %v", rules, err)
	}

	cl.answer = func(string, json.RawMessage) any { return map[string]any{"decision": "cancel"} }
	w.Model.Enqueue(commandCall("call_2", "rm -f nothing"), answer("never"))
	cl.turn(id, "rm")
	if s := turnStatus(t, cl.until("turn/completed")); s != "interrupted" {
		t.Errorf("status after cancel = %s, want interrupted", s)
	}
}

func TestThreadAndTurnOverrides(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	w.Model.Enqueue(answer("one"), answer("two"))
	cl := w.connect(w.Srv)
	var res struct {
		Model  string `json:"model"`
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
		Sandbox map[string]any `json:"sandbox"`
	}
	cl.call("thread/start", map[string]any{"cwd": w.Work, "model": "gpt-5.4", "sandbox": "read-only", "config": map[string]any{"model_verbosity": "low"}}, &res)
	cl.until("thread/started")
	if res.Model != "gpt-5.4" || res.Sandbox["type"] != "readOnly" {
		t.Errorf("thread/start = %+v", res)
	}
	cl.turn(res.Thread.ID, "a")
	cl.until("turn/completed")
	cl.call("turn/start", map[string]any{"threadId": res.Thread.ID, "model": "gpt-5.5", "input": []map[string]any{{"type": "text", "text": "b"}}}, nil)
	cl.until("turn/completed")
	reqs := w.Model.Requests()
	if len(reqs) != 2 || reqs[0].JSON["model"] != "gpt-5.4" || reqs[1].JSON["model"] != "gpt-5.5" {
		t.Errorf("models sent = %v, %v", reqs[0].JSON["model"], reqs[len(reqs)-1].JSON["model"])
	}
}

func TestItemsList(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	w.Model.Enqueue(answer("one"), answer("two"))
	cl := w.connect(w.Srv)
	id := cl.startThread(map[string]any{"cwd": w.Work})
	first := cl.turn(id, "a")
	cl.until("turn/completed")
	cl.turn(id, "b")
	cl.until("turn/completed")
	var page struct {
		Data []struct {
			TurnID string         `json:"turnId"`
			Item   map[string]any `json:"item"`
		} `json:"data"`
		NextCursor *string `json:"nextCursor"`
	}
	cl.call("thread/items/list", map[string]any{"threadId": id, "limit": 3}, &page)
	if len(page.Data) != 3 || page.NextCursor == nil || page.Data[0].Item["type"] != "userMessage" || page.Data[1].Item["text"] != "one" {
		t.Fatalf("first page = %+v", page)
	}
	cl.call("thread/items/list", map[string]any{"threadId": id, "cursor": *page.NextCursor}, &page)
	if len(page.Data) != 1 || page.Data[0].Item["text"] != "two" || page.NextCursor != nil {
		t.Errorf("second page = %+v", page)
	}
	cl.call("thread/items/list", map[string]any{"threadId": id, "turnId": first}, &page)
	if len(page.Data) != 2 || page.Data[0].TurnID != first {
		t.Errorf("one turn = %+v", page)
	}
}

func TestForkAtTurn(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	w.Model.Enqueue(answer("one"), answer("two"), answer("in the fork"))
	cl := w.connect(w.Srv)
	id := cl.startThread(map[string]any{"cwd": w.Work})
	first := cl.turn(id, "first question")
	cl.until("turn/completed")
	cl.turn(id, "second question")
	cl.until("turn/completed")
	var forked struct {
		Thread struct {
			ID    string `json:"id"`
			Turns []any  `json:"turns"`
		} `json:"thread"`
	}
	cl.call("thread/fork", map[string]any{"threadId": id, "lastTurnId": first}, &forked)
	if len(forked.Thread.Turns) != 1 {
		t.Errorf("fork has %d turns, want 1", len(forked.Thread.Turns))
	}
	cl.turn(forked.Thread.ID, "third")
	cl.until("turn/completed")
	reqs := w.Model.Requests()
	body := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(body, "first question") || strings.Contains(body, "second question") {
		t.Errorf("the fork's request should hold the first turn only")
	}
}
