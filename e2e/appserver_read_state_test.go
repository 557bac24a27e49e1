package e2e

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A thread's read state goes as in Codex 0.169: none before the thread is recorded, the
// first completed turn unread until the client marks the thread read (with the revision it
// saw; a stale one is refused), the thread's start when marked unread, and the next turn
// unread again; every change tells thread/readState/changed. want was recorded from Codex
// 0.169 (revisions masked; turns named by their order).
func TestAppServerReadStateLikeCodex(t *testing.T) {
	want := []string{
		"read: null",
		"read: turn 1",
		"read: turn 1 (new revision)",
		"stale update: -32600 read state changed",
		"read update: null [thread/readState/changed]",
		"read: null (same revision)",
		"unread update: threadStart [thread/readState/changed]",
		"read update: null [thread/readState/changed]",
		"read: turn 3",
		"list: turn 3 (same revision)",
	}
	if diff := cmp.Diff(want, readStates(t, binary)); diff != "" {
		t.Errorf("(-codex 0.169 +ours):\n%s", diff)
	}
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref != "" {
		if diff := cmp.Diff(readStates(t, ref), readStates(t, binary)); diff != "" {
			t.Errorf("(-live codex +ours):\n%s", diff)
		}
	}
}

func readStates(t *testing.T, bin string) []string {
	e := appServerEnv(t, "never")
	e.capabilities = map[string]any{"experimentalApi": true}
	e.Model.Enqueue(answer("one"), answer("two"), answer("three"))
	c, stop := e.startAppServerOf(bin)
	defer stop()
	c.sess.Unschematized("thread/readState/update")
	id := c.startThread(map[string]any{"cwd": e.Workdir})
	turns := map[string]string{}
	turn := func() {
		tid := c.turn(id, "hello")
		c.until("turn/completed")
		turns[tid] = "turn " + string(rune('0'+len(turns)+1))
	}
	type readState struct {
		FirstUnread *struct {
			Type   string `json:"type"`
			TurnID string `json:"turnId"`
		} `json:"firstUnread"`
		Revision string `json:"revision"`
	}
	var out []string
	lastRev := ""
	describe := func(rs *readState) string {
		if rs == nil {
			return "null"
		}
		s := "null"
		if u := rs.FirstUnread; u != nil {
			s = u.Type
			if u.Type == "turn" {
				s = turns[u.TurnID]
			}
		}
		if rs.Revision == lastRev {
			s += " (same revision)"
		} else if lastRev != "" && s != "null" && len(out) > 0 && out[len(out)-1] == "read: "+s {
			s += " (new revision)"
		}
		lastRev = rs.Revision
		return s
	}
	read := func() {
		var res struct {
			ReadState *readState `json:"readState"`
		}
		c.mustCall("thread/read", map[string]any{"threadId": id}, &res)
		out = append(out, "read: "+describe(res.ReadState))
	}
	update := func(name, op, rev string) {
		res, er := c.call("thread/readState/update", map[string]any{"threadId": id, "expectedRevision": rev, "operation": map[string]any{"type": op}})
		if er != nil {
			out = append(out, name+": "+errorClass(er.Error.Code, er.Error.Message))
			return
		}
		var r struct {
			ReadState readState `json:"readState"`
		}
		json.Unmarshal(res, &r)
		line := name + ": " + describe(&r.ReadState)
		for _, n := range c.settle(250e6) {
			if n.Method == "thread/readState/changed" {
				line += " [" + n.Method + "]"
			}
		}
		out = append(out, line)
	}
	read()
	turn()
	read()
	turn()
	read()
	update("stale update", "read", "not-the-revision")
	update("read update", "read", lastRev)
	read()
	update("unread update", "unread", lastRev)
	update("read update", "read", lastRev)
	turn()
	read()
	var list struct {
		ReadStates map[string]*readState `json:"readStates"`
	}
	c.mustCall("thread/list", map[string]any{}, &list)
	out = append(out, "list: "+describe(list.ReadStates[id]))
	return out
}
