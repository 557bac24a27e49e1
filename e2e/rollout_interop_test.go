package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/rollout"
	tk "github.com/gocodex/gocodex/internal/testkit"
)

// Threads move between gocodex and Codex 0.169 both ways: each lists the other's threads
// with their first message and resumes the latest one. Codex finds threads through its state
// DB (CODEX_HOME/state_5.sqlite): it is filled from the rollouts when Codex creates it, and
// its app-server's thread/list scans the rollouts and adds what it can give a preview (see
// internal/rollout/testdata/paginated/README.md). Both need the paginated form gocodex now
// writes.

// listedThread is one entry of thread/list.
type listedThread struct {
	ID          string `json:"id"`
	Preview     string `json:"preview"`
	HistoryMode string `json:"historyMode"`
}

// appServerCall runs bin's app-server, initializes it and sends one request; it returns the
// result.
func (e *env) appServerCall(bin, method string, params any) json.RawMessage {
	e.t.Helper()
	saved := binary
	binary = bin
	r := e.startRawAppServer()
	binary = saved
	r.initialize()
	p, _ := json.Marshal(params)
	r.send(fmt.Sprintf(`{"id":"call","method":%q,"params":%s}`, method, p))
	res := r.response("call")
	if res["error"] != nil {
		e.t.Fatalf("%s %s: %v", bin, method, res["error"])
	}
	b, _ := json.Marshal(res["result"])
	return b
}

// listThreads is bin's thread/list of exec and interactive threads, newest first.
func listThreads(t *testing.T, e *env, bin string) []listedThread {
	t.Helper()
	var page struct {
		Data []listedThread `json:"data"`
	}
	raw := e.appServerCall(bin, "thread/list", map[string]any{"sourceKinds": []string{"cli", "vscode", "exec", "appServer"}})
	if err := json.Unmarshal(raw, &page); err != nil {
		t.Fatal(err)
	}
	return page.Data
}

func codexExec(t *testing.T, e *env, ref string, args ...string) result {
	t.Helper()
	return e.runBin(ref, "", append([]string{"exec", "--json", "--skip-git-repo-check"}, args...)...)
}

// TestCodexListsAndResumesOurThreads: with Codex's state DB already made (Codex ran first),
// a thread gocodex writes shows in Codex's thread/list with its first message, and Codex's
// `exec resume --last` then continues it.
func TestCodexListsAndResumesOurThreads(t *testing.T) {
	ref := referenceBinary(t)
	e := newEnv(t)
	e.Model.Enqueue(answer("codex one"), answer("ours"), answer("codex again"))
	codexID := threadStarted(t, codexExec(t, e, ref, "from codex first"))
	if _, err := os.Stat(filepath.Join(e.CodexHome, "state_5.sqlite")); err != nil {
		t.Fatalf("codex made no state DB: %v", err)
	}
	ourID := threadStarted(t, e.run("", "exec", "--json", "from gocodex"))

	got := listThreads(t, e, ref)
	want := []listedThread{{ourID, "from gocodex", "paginated"}, {codexID, "from codex first", "paginated"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("codex's thread/list (-want +got):\n%s", diff)
	}

	res := codexExec(t, e, ref, "resume", "--last", "again from codex")
	if id := threadStarted(t, res); id != ourID {
		t.Errorf("codex exec resume --last continued %s, want our thread %s", id, ourID)
	}
	reqs := e.Model.Requests()
	if got := userTexts(reqs[len(reqs)-1]); !cmp.Equal(got, []string{"from gocodex", "again from codex"}) {
		t.Errorf("codex's resumed request has user messages %q", got)
	}
}

// TestCodexResumeLastPicksOurThread: Codex's first run over a CODEX_HOME where only gocodex
// wrote threads indexes them, and `codex exec resume --last` takes the newest.
func TestCodexResumeLastPicksOurThread(t *testing.T) {
	ref := referenceBinary(t)
	e := newEnv(t)
	e.Model.Enqueue(answer("one"), answer("two"), answer("three"))
	threadStarted(t, e.run("", "exec", "--json", "older thread"))
	newest := threadStarted(t, e.run("", "exec", "--json", "newest thread"))
	if id := threadStarted(t, codexExec(t, e, ref, "resume", "--last", "continued by codex")); id != newest {
		t.Errorf("codex exec resume --last continued %s, want %s", id, newest)
	}
	reqs := e.Model.Requests()
	if got := userTexts(reqs[len(reqs)-1]); !cmp.Equal(got, []string{"newest thread", "continued by codex"}) {
		t.Errorf("codex's resumed request has user messages %q", got)
	}
}

// TestWeListAndResumeCodexThreads: a thread Codex writes shows in gocodex's thread/list with
// its first message and its turns in thread/read, and gocodex's `exec resume --last`
// continues it.
func TestWeListAndResumeCodexThreads(t *testing.T) {
	ref := referenceBinary(t)
	e := newEnv(t)
	e.Model.Enqueue(answer("ours"), answer("codex answer"), answer("ours again"))
	ourID := threadStarted(t, e.run("", "exec", "--json", "from gocodex first"))
	codexID := threadStarted(t, codexExec(t, e, ref, "from codex"))

	got := listThreads(t, e, binary)
	want := []listedThread{{ID: codexID, Preview: "from codex"}, {ID: ourID, Preview: "from gocodex first"}}
	for i := range got {
		got[i].HistoryMode = "" // gocodex's Thread has no historyMode yet
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("gocodex's thread/list (-want +got):\n%s", diff)
	}

	var read struct {
		Thread struct {
			Preview string `json:"preview"`
			Turns   []struct {
				Items []struct {
					Type    string `json:"type"`
					Text    string `json:"text"`
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"items"`
			} `json:"turns"`
		} `json:"thread"`
	}
	if err := json.Unmarshal(e.appServerCall(binary, "thread/read", map[string]any{"threadId": codexID, "includeTurns": true}), &read); err != nil {
		t.Fatal(err)
	}
	var items []string
	for _, turn := range read.Thread.Turns {
		for _, it := range turn.Items {
			text := it.Text
			if len(it.Content) > 0 {
				text = it.Content[0].Text
			}
			items = append(items, it.Type+": "+text)
		}
	}
	if diff := cmp.Diff([]string{"userMessage: from codex", "agentMessage: codex answer"}, items); diff != "" {
		t.Errorf("gocodex's thread/read of codex's thread (-want +got):\n%s", diff)
	}

	if id := threadStarted(t, e.run("", "exec", "--json", "resume", "--last", "continued by gocodex")); id != codexID {
		t.Errorf("gocodex exec resume --last continued %s, want codex's thread %s", id, codexID)
	}
	reqs := e.Model.Requests()
	if got := userTexts(reqs[len(reqs)-1]); !cmp.Equal(got, []string{"from codex", "continued by gocodex"}) {
		t.Errorf("gocodex's resumed request has user messages %q", got)
	}
}

// TestRolloutItemsMatchCodex runs one turn with reasoning, a command, a patch and an answer
// through both binaries and compares what their rollouts say of it: session_meta's history
// fields and, per thread item kind, the keys of the item_completed line and of the item.
func TestRolloutItemsMatchCodex(t *testing.T) {
	ref := referenceBinary(t)
	usage := tk.Completed(tk.Usage{Input: 10, Output: 5, Total: 15})
	turn := func() []tk.Response {
		return []tk.Response{
			tk.SSE(tk.Created(), tk.Reasoning("rs_1", "thinking it over"), tk.FunctionCall("c1", "exec_command", `{"cmd":"echo hi"}`), usage),
			tk.SSE(tk.Created(), tk.CustomToolCall("p1", "apply_patch", "*** Begin Patch\n*** Add File: made.txt\n+hello\n*** End Patch\n"), usage),
			tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_1", "the answer"), usage),
		}
	}
	shapes := func(bin string) map[string]string {
		e := newEnv(t)
		e.Model.Enqueue(turn()...)
		id := threadStarted(t, e.runBin(bin, "", "exec", "--json", "--skip-git-repo-check", "think then answer"))
		path, _, err := rollout.Find(e.CodexHome, id)
		if err != nil {
			t.Fatal(err)
		}
		return rolloutShapes(t, path)
	}
	theirs, ours := shapes(ref), shapes(binary)
	for _, k := range []string{"session_meta", "envelope", "UserMessage", "UserMessage.content", "AgentMessage", "AgentMessage.content", "Reasoning",
		"CommandExecution", "FileChange"} {
		if theirs[k] == "" {
			t.Errorf("codex wrote no %s", k)
		}
		if theirs[k] != ours[k] {
			t.Errorf("%s: codex %q, gocodex %q", k, theirs[k], ours[k])
		}
	}
}

// rolloutShapes: "session_meta" is its session_id and history_mode; each item kind maps to
// its sorted keys; "envelope" to the item_completed line's keys.
func rolloutShapes(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	keys := func(m map[string]any) string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return strings.Join(ks, ",")
	}
	for sc.Scan() {
		var l struct {
			Type    string         `json:"type"`
			Payload map[string]any `json:"payload"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		switch {
		case l.Type == "session_meta":
			out["session_meta"] = fmt.Sprintf("session_id=id:%v history_mode=%v", l.Payload["session_id"] == l.Payload["id"], l.Payload["history_mode"])
		case l.Type == "event_msg" && l.Payload["type"] == "item_completed":
			item, _ := l.Payload["item"].(map[string]any)
			kind, _ := item["type"].(string)
			out["envelope"] = keys(l.Payload)
			out[kind] = keys(item)
			if parts, ok := item["content"].([]any); ok && len(parts) > 0 {
				if p, ok := parts[0].(map[string]any); ok {
					out[kind+".content"] = keys(p)
				}
			}
		}
	}
	return out
}

// TestMigrateRollouts converts a thread gocodex wrote in the older form: the report before
// and after, the thread then listed and resumed by gocodex with its first message, and, with
// the reference binary, Codex's report on the same files and Codex listing the thread.
func TestMigrateRollouts(t *testing.T) {
	const id = "01a21eab-1964-71da-abad-1f11f71f7973"
	setup := func() *env {
		e := newEnv(t)
		legacy, err := os.ReadFile(filepath.Join("..", "internal", "rollout", "testdata", "paginated", "gocodex-legacy.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		// The thread was recorded in the test's work tree.
		legacy = []byte(strings.ReplaceAll(string(legacy), "/tmp/ro/work", e.Workdir))
		day := filepath.Join(e.CodexHome, "sessions", "2026", "11", "27")
		if err := os.MkdirAll(day, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(day, "rollout-2026-11-27T20-20-59-"+id+".jsonl"), legacy, 0o600); err != nil {
			t.Fatal(err)
		}
		return e
	}
	type outcome struct {
		ThreadID string `json:"thread_id"`
		Status   string `json:"status"`
	}
	report := func(r result) []outcome {
		t.Helper()
		var rep struct {
			Outcomes []outcome `json:"outcomes"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
			t.Fatalf("report is not JSON: %v\n%s\n%s", err, r.Stdout, r.Stderr)
		}
		return rep.Outcomes
	}

	e := setup()
	scan := e.run("", "migrate-rollouts")
	if scan.Code != 0 || !strings.Contains(scan.Stdout, "Scanned 1 rollout(s): 1 eligible, 0 already paginated, 0 skipped (0 empty, 0 busy), 0 failed.") ||
		!strings.Contains(scan.Stdout, "Run `gocodex migrate-rollouts --apply` to migrate eligible sessions.") {
		t.Errorf("scan: exit %d\n%s%s", scan.Code, scan.Stdout, scan.Stderr)
	}
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref != "" {
		theirs := setup()
		if diff := cmp.Diff(report(theirs.runBin(ref, "", "migrate-rollouts", "--json")), report(e.run("", "migrate-rollouts", "--json"))); diff != "" {
			t.Errorf("scan report (-codex +ours):\n%s", diff)
		}
	}
	if got := report(e.run("", "migrate-rollouts", "--apply", "--json")); !cmp.Equal(got, []outcome{{id, "migrated"}}) {
		t.Errorf("apply: %+v", got)
	}
	if got := report(e.run("", "migrate-rollouts", "--json")); !cmp.Equal(got, []outcome{{id, "already_paginated"}}) {
		t.Errorf("after apply: %+v", got)
	}

	if got := listThreads(t, e, binary); len(got) != 1 || got[0].ID != id || got[0].Preview != "gocodex only thread" {
		t.Errorf("gocodex's thread/list after the migration: %+v", got)
	}
	e.Model.Enqueue(answer("resumed"))
	if got := threadStarted(t, e.run("", "exec", "--json", "resume", id, "after the migration")); got != id {
		t.Errorf("resumed %s, want %s", got, id)
	}
	if got := userTexts(e.Model.Requests()[0]); !cmp.Equal(got, []string{"gocodex only thread", "after the migration"}) {
		t.Errorf("resumed request has user messages %q", got)
	}
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref != "" {
		if got := listThreads(t, e, ref); len(got) != 1 || got[0].ID != id || got[0].Preview != "gocodex only thread" || got[0].HistoryMode != "paginated" {
			t.Errorf("codex's thread/list after the migration: %+v", got)
		}
	}
}
