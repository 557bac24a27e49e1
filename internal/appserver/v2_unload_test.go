package appserver_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// loaded lists the loaded threads.
func (cl *client) loaded() []string {
	cl.t.Helper()
	var res struct {
		Data []string `json:"data"`
	}
	cl.call("thread/loaded/list", map[string]any{}, &res)
	return res.Data
}

func (cl *client) unsubscribe(id string) string {
	cl.t.Helper()
	var res struct {
		Status string `json:"status"`
	}
	cl.call("thread/unsubscribe", map[string]any{"threadId": id}, &res)
	return res.Status
}

// As with Codex 0.169 (checked against its app-server over websocket): a thread stays
// loaded while any connection is subscribed, and still for the unload delay after the last
// one left (30 minutes by default); unsubscribing twice is notSubscribed.
func TestUnsubscribeKeepsThreadLoaded(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	w.Model.Enqueue(answer("one"))
	a, b := w.connect(w.Srv), w.connect(w.Srv)
	id := a.startThread(map[string]any{"cwd": w.Work})
	a.turn(id, "hi")
	a.until("turn/completed")
	b.call("thread/resume", map[string]any{"threadId": id}, nil)

	steps := []struct {
		name string
		cl   *client
		want string
	}{
		{"a leaves", a, "unsubscribed"},
		{"b leaves", b, "unsubscribed"},
		{"a again", a, "notSubscribed"},
	}
	for _, st := range steps {
		if got := st.cl.unsubscribe(id); got != st.want {
			t.Errorf("%s: unsubscribe = %s, want %s", st.name, got, st.want)
		}
		if diff := cmp.Diff([]string{id}, a.loaded()); diff != "" {
			t.Errorf("%s: loaded threads (-want +got):\n%s", st.name, diff)
		}
	}
}

// Once nobody is subscribed and the delay has passed the thread is unloaded, and every
// connection (subscribed or not, as with Codex) hears thread/status/changed (notLoaded) then
// thread/closed.
func TestThreadUnload(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	w.unloadDelay = 10 * time.Millisecond
	srv := w.server()
	w.Model.Enqueue(answer("one"))
	a, b, c := w.connect(srv), w.connect(srv), w.connect(srv)
	id := a.startThread(map[string]any{"cwd": w.Work})
	a.turn(id, "hi")
	a.until("turn/completed")
	b.call("thread/resume", map[string]any{"threadId": id}, nil)
	// a leaving changes nothing while b is subscribed: only b's leaving closes the thread.
	if got := a.unsubscribe(id); got != "unsubscribed" {
		t.Fatalf("a: unsubscribe = %s", got)
	}
	if got := b.unsubscribe(id); got != "unsubscribed" {
		t.Fatalf("b: unsubscribe = %s", got)
	}
	for name, cl := range map[string]*client{"a": a, "b": b, "c": c} {
		got := cl.until("thread/closed")
		st := find(got, "thread/status/changed")
		if len(st) == 0 || st[len(st)-1]["status"].(map[string]any)["type"] != "notLoaded" {
			t.Errorf("%s: no notLoaded status before thread/closed: %v", name, methods(got))
		}
		if cl := find(got, "thread/closed"); cl[0]["threadId"] != id {
			t.Errorf("%s: thread/closed = %v", name, cl[0])
		}
	}
	if got := c.loaded(); len(got) != 0 {
		t.Errorf("loaded after unload = %v", got)
	}
	if got := b.unsubscribe(id); got != "notLoaded" {
		t.Errorf("unsubscribe after unload = %s, want notLoaded", got)
	}
}

// thread/started and the thread's status changes go to every connection, not only to its
// subscribers, as from Codex; the turn's own notifications do not.
func TestThreadStartedAndStatusToEveryConnection(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	w.Model.Enqueue(answer("one"))
	a, b := w.connect(w.Srv), w.connect(w.Srv)
	id := a.startThread(map[string]any{"cwd": w.Work})
	got := find(b.until("thread/started"), "thread/started")
	if th := got[0]["thread"].(map[string]any); th["id"] != id {
		t.Errorf("other connection's thread/started = %v, want thread %s", th["id"], id)
	}
	a.turn(id, "hi")
	a.until("turn/completed")
	var seen []string
	for {
		ns := b.until("thread/status/changed")
		for _, m := range methods(ns) {
			if m != "thread/status/changed" && m != "remoteControl/status/changed" { // the latter follows b's initialize
				t.Errorf("a connection not subscribed got %s", m)
			}
		}
		st := find(ns, "thread/status/changed")[0]
		if st["threadId"] != id {
			t.Fatalf("status of %v, want %s", st["threadId"], id)
		}
		typ := st["status"].(map[string]any)["type"].(string)
		seen = append(seen, typ)
		if typ == "idle" && len(seen) > 1 {
			break
		}
	}
	if diff := cmp.Diff([]string{"active", "idle"}, seen); diff != "" {
		t.Errorf("statuses seen by a connection not subscribed (-want +got):\n%s", diff)
	}
}
