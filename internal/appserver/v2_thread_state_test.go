package appserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocodex/gocodex/internal/appserver"
	"github.com/gocodex/gocodex/internal/appserver/schematest"
	"github.com/gocodex/gocodex/internal/jsonrpc"
	tk "github.com/gocodex/gocodex/internal/testkit"
)

// restart closes the server (its threads shut down, their rollouts flushed after every op
// already submitted) and builds a new one over the same files.
func restart(t *testing.T, w *world) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := w.Srv.Close(ctx); err != nil {
		t.Fatalf("close: %v", err)
	}
	w.Srv = w.server()
}

// threadWithTurns starts a thread and runs one turn per answer.
func threadWithTurns(t *testing.T, w *world, cl *client, answers ...string) (string, []string) {
	t.Helper()
	for _, a := range answers {
		w.Model.Enqueue(answer(a))
	}
	id := cl.startThread(map[string]any{"cwd": w.Work})
	var turns []string
	for _, a := range answers {
		turns = append(turns, cl.turn(id, "say "+a))
		cl.until("turn/completed")
	}
	return id, turns
}

type threadView struct {
	Thread struct {
		ID      string `json:"id"`
		Section *struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"section"`
		GitInfo *struct {
			Sha    *string `json:"sha"`
			Branch *string `json:"branch"`
		} `json:"gitInfo"`
		Turns []struct {
			ID string `json:"id"`
		} `json:"turns"`
	} `json:"thread"`
}

// Sections, attachments, goals and git edits outlive the server: a new one over the same
// CODEX_HOME answers them for the thread it has not loaded.
func TestThreadStateSurvivesRestart(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)
	id, _ := threadWithTurns(t, w, cl, "one")
	var sec struct {
		Section struct {
			ID string `json:"id"`
		} `json:"section"`
	}
	cl.call("threadSection/create", map[string]any{"name": "Work"}, &sec)
	cl.call("thread/section/move", map[string]any{"threadId": id, "sectionId": sec.Section.ID}, nil)
	cl.call("thread/attachment/add", map[string]any{"threadId": id, "attachmentType": "pr", "identityKey": "gh/1", "payload": map[string]any{"n": 1}}, nil)
	cl.call("thread/goal/set", map[string]any{"threadId": id, "objective": "ship it", "status": "paused"}, nil)
	cl.call("thread/metadata/update", map[string]any{"threadId": id, "gitInfo": map[string]any{"branch": "feat", "sha": "abc"}}, nil)

	restart(t, w)
	cl2 := w.connect(w.Srv)
	var read threadView
	cl2.call("thread/read", map[string]any{"threadId": id}, &read)
	if read.Thread.Section == nil || read.Thread.Section.ID != sec.Section.ID || read.Thread.Section.Name != "Work" {
		t.Errorf("section after restart: %+v", read.Thread.Section)
	}
	if g := read.Thread.GitInfo; g == nil || g.Branch == nil || *g.Branch != "feat" || g.Sha == nil || *g.Sha != "abc" {
		t.Errorf("git info after restart: %+v", g)
	}
	var atts struct {
		Data []struct {
			IdentityKey string `json:"identityKey"`
		} `json:"data"`
	}
	cl2.call("thread/attachment/list", map[string]any{"threadId": id}, &atts)
	if len(atts.Data) != 1 || atts.Data[0].IdentityKey != "gh/1" {
		t.Errorf("attachments after restart: %+v", atts.Data)
	}
	var goal struct {
		Goal *struct {
			Objective string `json:"objective"`
			Status    string `json:"status"`
		} `json:"goal"`
	}
	cl2.call("thread/goal/get", map[string]any{"threadId": id}, &goal)
	if goal.Goal == nil || goal.Goal.Objective != "ship it" || goal.Goal.Status != "paused" {
		t.Errorf("goal after restart: %+v", goal.Goal)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	cl2.call("thread/list", map[string]any{"sectionId": sec.Section.ID}, &list)
	if len(list.Data) != 1 || list.Data[0].ID != id {
		t.Errorf("thread/list of the section after restart: %+v", list.Data)
	}
}

// An active goal set on an idle thread is pursued as Codex 0.169 pursues it: a goal turn
// opened by the objective and the continuation message, the goal tools offered, each
// response's tokens counted, and no further turn once the model marks the goal complete.
func TestActiveGoalPursued(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)
	id, _ := threadWithTurns(t, w, cl, "one")
	w.Model.Enqueue(
		tk.SSE(tk.Created(), tk.FunctionCall("call_g1", "get_goal", `{}`), tk.Completed(tk.Usage{Input: 10, Output: 1, Total: 11})),
		tk.SSE(tk.Created(), tk.FunctionCall("call_g2", "update_goal", `{"status":"complete"}`), tk.Completed(tk.Usage{Input: 10, Output: 1, Total: 11})),
		answer("done"))
	var set struct {
		Goal struct {
			Status string `json:"status"`
		} `json:"goal"`
	}
	cl.call("thread/goal/set", map[string]any{"threadId": id, "objective": "ship it", "tokenBudget": 100000}, &set)
	if set.Goal.Status != "active" {
		t.Fatalf("goal set: %+v", set)
	}
	got := cl.until("turn/completed")
	var goals []string
	for _, g := range find(got, "thread/goal/updated") {
		goal := g["goal"].(map[string]any)
		goals = append(goals, fmt.Sprintf("%v/%v", goal["status"], goal["tokensUsed"]))
	}
	// Codex 0.169 tells active/22 then complete/22: its usage report comes before the tool.
	if want := []string{"active/0", "active/11", "complete/11", "complete/22"}; strings.Join(goals, " ") != strings.Join(want, " ") {
		t.Errorf("goal updates %v, want %v", goals, want)
	}
	for _, m := range methods(got) {
		if m == "item/started" && len(find(got, "item/started")) > 1 {
			t.Errorf("goal tool calls showed as items: %v", methods(got))
			break
		}
	}
	reqs := w.Model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want the first turn's and the goal turn's three", len(reqs))
	}
	first := string(reqs[1].Body)
	for _, want := range []string{`"name":"goal_objective"`, `"namespace":"agent"`, `<codex_internal_context source=\"goal\">`, `Token budget: 100000`, `"name":"update_goal"`, `"name":"get_goal"`, `"name":"create_goal"`} {
		if !strings.Contains(first, want) {
			t.Errorf("goal turn's request lacks %s", want)
		}
	}
	if strings.Contains(first, `"type":"message","role":"user","content":[{"type":"input_text","text":"say one"}]}],`) {
		t.Errorf("unexpected layout")
	}
	last := string(reqs[3].Body)
	if !strings.Contains(last, `completionBudgetReport`) || !strings.Contains(last, `\"status\":\"complete\"`) {
		t.Errorf("update_goal's output: %s", last)
	}
	var goal struct {
		Goal struct {
			Status     string `json:"status"`
			TokensUsed int64  `json:"tokensUsed"`
		} `json:"goal"`
	}
	cl.call("thread/goal/get", map[string]any{"threadId": id}, &goal)
	if goal.Goal.Status != "complete" || goal.Goal.TokensUsed != 22 {
		t.Errorf("goal after the turn: %+v", goal.Goal)
	}
}

// A goal over its token budget becomes budgetLimited and no further goal turn starts.
func TestGoalBudgetLimit(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)
	id, _ := threadWithTurns(t, w, cl, "one")
	w.Model.Enqueue(answer("working"))
	cl.call("thread/goal/set", map[string]any{"threadId": id, "objective": "ship it", "tokenBudget": 5}, nil)
	got := cl.until("turn/completed")
	ups := find(got, "thread/goal/updated")
	if last := ups[len(ups)-1]["goal"].(map[string]any); last["status"] != "budgetLimited" {
		t.Errorf("last goal update: %v", last)
	}
	if n := len(w.Model.Requests()); n != 2 {
		t.Errorf("%d model requests, want 2 (no turn after the budget ran out)", n)
	}
}

// thread/revert drops the turn and the later ones from what the model sees next and from
// the rollout: a restarted server shows only the kept turn.
func TestRevertChangesHistoryAndRollout(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)
	id, turns := threadWithTurns(t, w, cl, "alpha", "beta", "gamma")
	cl.call("thread/revert", map[string]any{"threadId": id, "beforeTurnId": turns[1]}, nil)
	cl.until("thread/reverted")
	w.Model.Enqueue(answer("delta"))
	cl.turn(id, "again")
	cl.until("turn/completed")
	reqs := w.Model.Requests()
	body := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(body, "alpha") || strings.Contains(body, "beta") || strings.Contains(body, "gamma") {
		t.Errorf("request after revert keeps the wrong turns: %s", body)
	}

	restart(t, w)
	cl2 := w.connect(w.Srv)
	var read threadView
	cl2.call("thread/read", map[string]any{"threadId": id, "includeTurns": true}, &read)
	if len(read.Thread.Turns) != 2 || read.Thread.Turns[0].ID != turns[0] {
		t.Errorf("turns after restart: %+v, want the first and the new one", read.Thread.Turns)
	}
}

// thread/inject_items puts the items into the history (the next request carries them) and
// into the rollout (a resumed thread still has them); an item of an unknown type is left out.
func TestInjectItemsReachModelAndRollout(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)
	id, _ := threadWithTurns(t, w, cl, "one")
	cl.call("thread/inject_items", map[string]any{"threadId": id, "items": []any{
		map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "remember the lighthouse"}}},
		map[string]any{"type": "no_such_item"},
	}}, nil)
	restart(t, w)
	cl2 := w.connect(w.Srv)
	cl2.call("thread/resume", map[string]any{"threadId": id}, nil)
	w.Model.Enqueue(answer("two"))
	cl2.turn(id, "what to remember?")
	cl2.until("turn/completed")
	reqs := w.Model.Requests()
	body := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(body, "remember the lighthouse") || strings.Contains(body, "no_such_item") {
		t.Errorf("request after injection and resume: %s", body)
	}
	if e := cl2.callErr("thread/inject_items", map[string]any{"threadId": id, "items": []any{}}); e.Message != "items must not be empty" {
		t.Errorf("empty items: %q", e.Message)
	}
}

// thread/list's backwardsCursor, passed with the opposite sortDirection, starts again at
// the page's first thread.
func TestThreadListBackwardsCursor(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)
	var ids []string
	for _, a := range []string{"a", "b", "c"} {
		id, _ := threadWithTurns(t, w, cl, a)
		ids = append(ids, id)
	}
	type page struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		NextCursor      *string `json:"nextCursor"`
		BackwardsCursor *string `json:"backwardsCursor"`
	}
	var first page
	cl.call("thread/list", map[string]any{"limit": 2}, &first)
	if len(first.Data) != 2 || first.Data[0].ID != ids[2] || first.NextCursor == nil || first.BackwardsCursor == nil {
		t.Fatalf("first page: %+v", first)
	}
	var second page
	cl.call("thread/list", map[string]any{"limit": 2, "cursor": *first.NextCursor}, &second)
	if len(second.Data) != 1 || second.Data[0].ID != ids[0] || second.BackwardsCursor == nil {
		t.Fatalf("second page: %+v", second)
	}
	var back page
	cl.call("thread/list", map[string]any{"sortDirection": "asc", "cursor": *second.BackwardsCursor}, &back)
	if len(back.Data) != 3 || back.Data[0].ID != ids[0] || back.Data[2].ID != ids[2] {
		t.Errorf("backwards from the second page: %+v", back.Data)
	}
	var turns struct {
		Data            []struct{ ID string } `json:"data"`
		BackwardsCursor *string               `json:"backwardsCursor"`
	}
	cl.call("thread/turns/list", map[string]any{"threadId": ids[0]}, &turns)
	if turns.BackwardsCursor == nil || *turns.BackwardsCursor != turns.Data[0].ID {
		t.Errorf("turns backwards cursor: %+v", turns)
	}
	type itemsPage struct {
		Data []struct {
			Item struct {
				ID string `json:"id"`
			} `json:"item"`
		} `json:"data"`
		NextCursor      *string `json:"nextCursor"`
		BackwardsCursor *string `json:"backwardsCursor"`
	}
	var p1, p2, itemsBack itemsPage
	cl.call("thread/items/list", map[string]any{"threadId": ids[0], "limit": 1}, &p1)
	cl.call("thread/items/list", map[string]any{"threadId": ids[0], "limit": 1, "cursor": *p1.NextCursor}, &p2)
	if len(p2.Data) != 1 || p2.BackwardsCursor == nil {
		t.Fatalf("second items page: %+v", p2)
	}
	cl.call("thread/items/list", map[string]any{"threadId": ids[0], "sortDirection": "desc", "cursor": *p2.BackwardsCursor}, &itemsBack)
	if len(itemsBack.Data) != 2 || itemsBack.Data[0].Item.ID != p2.Data[0].Item.ID || itemsBack.Data[1].Item.ID != p1.Data[0].Item.ID {
		t.Errorf("items backwards from the second page: %+v", itemsBack.Data)
	}
}

// A damaged state file is a clear error, not a panic or a silent reset.
func TestThreadStateFileDamaged(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)
	if err := os.WriteFile(filepath.Join(w.Home, "gocodex_thread_state.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := cl.callErr("threadSection/list", map[string]any{})
	if e.Code != jsonrpc.CodeInternalError || !strings.Contains(e.Message, "damaged") {
		t.Errorf("damaged state: %d %q", e.Code, e.Message)
	}
	if b, _ := os.ReadFile(filepath.Join(w.Home, "gocodex_thread_state.json")); string(b) != "{not json" {
		t.Errorf("the damaged file was rewritten: %q", b)
	}
}

// thread/list with a section fills its pages from the threads in the section, however many
// others lie between them, and its last page has no next cursor.
func TestThreadListSectionPages(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)
	var ids []string
	for _, a := range []string{"a", "b", "c", "d"} {
		id, _ := threadWithTurns(t, w, cl, a)
		ids = append(ids, id)
	}
	var sec struct {
		Section struct {
			ID string `json:"id"`
		} `json:"section"`
	}
	cl.call("threadSection/create", map[string]any{"name": "S"}, &sec)
	for _, id := range []string{ids[0], ids[3]} {
		cl.call("thread/section/move", map[string]any{"threadId": id, "sectionId": sec.Section.ID}, nil)
	}
	type page struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		NextCursor *string `json:"nextCursor"`
	}
	var p1, p2 page
	cl.call("thread/list", map[string]any{"sectionId": sec.Section.ID, "limit": 1}, &p1)
	if len(p1.Data) != 1 || p1.Data[0].ID != ids[3] || p1.NextCursor == nil {
		t.Fatalf("first page: %+v", p1)
	}
	cl.call("thread/list", map[string]any{"sectionId": sec.Section.ID, "limit": 1, "cursor": *p1.NextCursor}, &p2)
	if len(p2.Data) != 1 || p2.Data[0].ID != ids[0] || p2.NextCursor != nil {
		t.Fatalf("second page: %+v", p2)
	}
	var all page
	cl.call("thread/list", map[string]any{"limit": 4}, &all)
	if len(all.Data) != 4 || all.NextCursor != nil {
		t.Errorf("a page holding every thread: %d threads, next %v", len(all.Data), all.NextCursor)
	}
}

// Thread names live in CODEX_HOME/session_index.jsonl as Codex 0.169 keeps them: a name
// Codex wrote shows in thread/read, and thread/name/set appends a line Codex reads, for a
// thread that is not loaded too.
func TestThreadNamesInSessionIndex(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)
	id, _ := threadWithTurns(t, w, cl, "one")
	index := filepath.Join(w.Home, "session_index.jsonl")
	codexLine := `{"id":"` + id + `","thread_name":"From Codex","updated_at":"2026-11-27T20:48:50.985303965Z"}` + "\n"
	if err := os.WriteFile(index, []byte(codexLine), 0o600); err != nil {
		t.Fatal(err)
	}
	var read struct {
		Thread struct {
			Name *string `json:"name"`
		} `json:"thread"`
	}
	cl.call("thread/read", map[string]any{"threadId": id}, &read)
	if read.Thread.Name == nil || *read.Thread.Name != "From Codex" {
		t.Errorf("name from Codex's index: %v", read.Thread.Name)
	}
	restart(t, w)
	cl2 := w.connect(w.Srv)
	cl2.call("thread/name/set", map[string]any{"threadId": id, "name": "From gocodex"}, nil)
	b, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], `{"id":"`+id+`","thread_name":"From gocodex","updated_at":"`) {
		t.Errorf("session index after rename:\n%s", b)
	}
	cl2.call("thread/read", map[string]any{"threadId": id}, &read)
	if read.Thread.Name == nil || *read.Thread.Name != "From gocodex" {
		t.Errorf("name after rename: %v", read.Thread.Name)
	}
	if e := cl2.callErr("thread/name/set", map[string]any{"threadId": id, "name": ""}); e.Message != "thread name must not be empty" {
		t.Errorf("empty name: %q", e.Message)
	}
	// As Codex 0.169's thread/delete (observed): the thread's names leave the index.
	cl2.call("thread/delete", map[string]any{"threadId": id}, nil)
	if b, _ := os.ReadFile(index); strings.Contains(string(b), id) {
		t.Errorf("session index after thread/delete:\n%s", b)
	}
}

// Bad params to the thread state methods: a JSON-RPC error each, the server answering on.
func TestThreadStateMethodsBadParams(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)
	id, _ := threadWithTurns(t, w, cl, "one")
	cases := []struct {
		method string
		params any
	}{
		{"threadSection/create", map[string]any{}},
		{"threadSection/create", map[string]any{"name": 5}},
		{"threadSection/update", map[string]any{"name": "x"}},
		{"threadSection/delete", map[string]any{"sectionId": []int{1}}},
		{"threadSection/list", map[string]any{"limit": -1}},
		{"thread/section/move", map[string]any{"threadId": id, "sectionId": 7}},
		{"thread/section/move", map[string]any{"sectionId": nil}},
		{"thread/attachment/add", map[string]any{"threadId": id}},
		{"thread/attachment/add", map[string]any{"threadId": "nope", "attachmentType": "a", "identityKey": "k", "payload": 1}},
		{"thread/attachment/list", map[string]any{"threadId": id, "cursor": "garbage"}},
		{"thread/attachmentOwner/list", map[string]any{"attachmentType": "", "identityKey": "k"}},
		{"thread/attachment/remove", map[string]any{"threadId": id, "attachmentType": "a"}},
		{"thread/goal/set", map[string]any{"threadId": id, "status": "sleeping"}},
		{"thread/goal/set", map[string]any{"threadId": id, "tokenBudget": "many"}},
		{"thread/goal/set", map[string]any{"threadId": id, "status": "paused"}}, // no goal yet, no objective
		{"thread/goal/clear", map[string]any{"threadId": "nope"}},
		{"thread/metadata/update", map[string]any{"threadId": id, "gitInfo": map[string]any{"sha": 12}}},
		{"thread/metadata/update", map[string]any{"threadId": id, "gitInfo": "main"}},
		{"thread/revert", map[string]any{"threadId": id}},
		{"thread/inject_items", map[string]any{"threadId": id, "items": "x"}},
		{"thread/inject_items", map[string]any{"threadId": id, "items": []any{map[string]any{"type": "message", "role": 3}}}},
		{"thread/approveGuardianDeniedAction", map[string]any{"threadId": id, "event": "x"}},
		{"thread/approveGuardianDeniedAction", map[string]any{"threadId": id, "event": map[string]any{"id": "e1"}}},
		{"thread/name/set", map[string]any{"threadId": "nope", "name": "x"}},
	}
	for _, c := range cases {
		e := cl.callErr(c.method, c.params)
		if e.Code != jsonrpc.CodeInvalidRequest && e.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s %v: code %d %q", c.method, c.params, e.Code, e.Message)
		}
	}
	var list struct {
		Data []any `json:"data"`
	}
	cl.call("threadSection/list", map[string]any{}, &list)
	if len(list.Data) != 1 {
		t.Errorf("sections after bad calls: %v", list.Data)
	}
}

// thread/rollback drops the turns from the thread as shown too, not only from the history.
func TestRollbackDropsShownTurns(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	// thread/rollback left the schema with Codex 0.169 (replaced by thread/revert).
	cl := &client{t: t}
	ctx, cancel := context.WithCancel(context.Background())
	sess := schematest.Wrap(t).Unschematized("thread/rollback")
	cl.c = appserver.Connect(ctx, w.Srv, appserver.ClientOptions{Tap: sess, HandleRequest: cl.handle, Notifications: 1 << 14})
	t.Cleanup(func() { cancel(); cl.c.Close() })
	if _, err := cl.c.Initialize(ctx, clientInfo("test", "1.0")); err != nil {
		t.Fatal(err)
	}
	id, turns := threadWithTurns(t, w, cl, "one", "two")
	cl.call("thread/rollback", map[string]any{"threadId": id, "numTurns": 1}, nil)
	var read threadView
	cl.call("thread/read", map[string]any{"threadId": id, "includeTurns": true}, &read)
	if len(read.Thread.Turns) != 1 || read.Thread.Turns[0].ID != turns[0] {
		t.Errorf("turns after rollback: %+v", read.Thread.Turns)
	}
}

// A thread resumed with an active goal goes on pursuing it, the objective given again, as
// Codex 0.169 does; an interrupted goal turn starts no other.
func TestGoalPursuitAfterInterruptAndResume(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)
	id, _ := threadWithTurns(t, w, cl, "one")
	w.Model.Enqueue(tk.Stall(3, tk.Created(), tk.AssistantMessageStream("msg_1", "thinking"), tk.Completed(tk.Usage{})))
	cl.call("thread/goal/set", map[string]any{"threadId": id, "objective": "ship it"}, nil)
	started := find(cl.until("item/agentMessage/delta"), "turn/started")
	turn := started[0]["turn"].(map[string]any)["id"]
	cl.call("turn/interrupt", map[string]any{"threadId": id, "turnId": turn}, nil)
	cl.until("turn/completed")
	if n := len(w.Model.Requests()); n != 2 {
		t.Fatalf("%d requests after the interrupt, want 2", n)
	}
	restart(t, w)
	cl2 := w.connect(w.Srv)
	w.Model.Enqueue(tk.SSE(tk.Created(), tk.FunctionCall("call_g", "update_goal", `{"status":"complete"}`), tk.Completed(tk.Usage{Input: 1, Output: 1, Total: 2})), answer("done"))
	cl2.call("thread/resume", map[string]any{"threadId": id}, nil)
	cl2.until("turn/completed")
	reqs := w.Model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	// (The first goal turn's objective item does not survive the restart: the rollout
	// reader drops an output with no call. The resumed goal turn gives it again.)
	if body := string(reqs[2].Body); !strings.Contains(body[strings.Index(body, "<turn_aborted>"):], `"name":"goal_objective"`) {
		t.Errorf("the resumed goal turn does not give the objective again")
	}
}

// A fork carries its source's name, as Codex 0.169's does, and keeps it across a restart.
func TestForkKeepsName(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)
	id, _ := threadWithTurns(t, w, cl, "one")
	cl.call("thread/name/set", map[string]any{"threadId": id, "name": "Named"}, nil)
	var fork struct {
		Thread struct {
			ID   string  `json:"id"`
			Name *string `json:"name"`
		} `json:"thread"`
	}
	cl.call("thread/fork", map[string]any{"threadId": id}, &fork)
	if fork.Thread.Name == nil || *fork.Thread.Name != "Named" {
		t.Fatalf("fork's name: %v", fork.Thread.Name)
	}
	restart(t, w)
	cl2 := w.connect(w.Srv)
	var read struct {
		Thread struct {
			Name *string `json:"name"`
		} `json:"thread"`
	}
	cl2.call("thread/read", map[string]any{"threadId": fork.Thread.ID}, &read)
	if read.Thread.Name == nil || *read.Thread.Name != "Named" {
		t.Errorf("fork's name after a restart: %v", read.Thread.Name)
	}
}
