package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/rollout"
	tk "github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/protocol"
)

// threadStarted returns the thread id of an `exec --json` run.
func threadStarted(t *testing.T, r result) string {
	t.Helper()
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	lines := jsonl(t, r.Stdout)
	if len(lines) == 0 || lines[0]["type"] != "thread.started" {
		t.Fatalf("no thread.started: %s", r.Stdout)
	}
	return lines[0]["thread_id"].(string)
}

// lastUserTexts are the user messages the model got in request i, without the context ones.
func userTexts(req tk.Request) []string {
	var out []string
	for _, s := range req.MessageTexts("user") {
		if !strings.HasPrefix(s, "<") {
			out = append(out, s)
		}
	}
	return out
}

func sessionFiles(t *testing.T, home string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(filepath.Join(home, "sessions"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestExecResumeKeepsThreadID: exec records the thread; `exec resume ID` and `resume --last`
// continue it under the same id (thread.started carries it) with the whole history, in the
// argument order the TypeScript SDK uses.
func TestExecResumeKeepsThreadID(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("one!"), answer("two!"), answer("three!"))
	id := threadStarted(t, e.run("", "exec", "--json", "one"))
	files := sessionFiles(t, e.CodexHome)
	if len(files) != 1 || !strings.HasSuffix(files[0], "-"+id+".jsonl") {
		t.Fatalf("rollouts = %v", files)
	}
	// The SDK: exec --experimental-json [flags] resume <id> with the prompt on stdin.
	if got := threadStarted(t, e.run("two", "exec", "--experimental-json", "--skip-git-repo-check", "resume", id)); got != id {
		t.Errorf("resume by id started thread %s, want %s", got, id)
	}
	if got := threadStarted(t, e.run("", "exec", "--json", "resume", "--last", "three")); got != id {
		t.Errorf("resume --last started thread %s, want %s", got, id)
	}
	reqs := e.Model.Requests()
	if diff := cmp.Diff([]string{"one", "two", "three"}, userTexts(reqs[2])); diff != "" {
		t.Errorf("third request's user messages (-want +got):\n%s", diff)
	}
	if got := reqs[2].MessageTexts("assistant"); !cmp.Equal(got, []string{"one!", "two!"}) {
		t.Errorf("third request's answers = %v", got)
	}
	// Still one file, now holding three turns.
	files = sessionFiles(t, e.CodexHome)
	r, err := rollout.ReadFile(files[0])
	if len(files) != 1 || err != nil {
		t.Fatalf("rollouts = %v, %v", files, err)
	}
	if n := len(r.Reconstruct().History); n < 6 {
		t.Errorf("history has %d items", n)
	}
	// An unknown id fails like Codex does.
	bad := e.run("", "exec", "--json", "resume", "01a20268-0000-7000-8000-000000000000", "x")
	if bad.Code != 1 || !strings.Contains(bad.Stderr, "no rollout found for thread id 01a20268-0000-7000-8000-000000000000") {
		t.Errorf("unknown id: exit %d, stderr %q", bad.Code, bad.Stderr)
	}
}

func TestExecEphemeralWritesNothing(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("ok"))
	threadStarted(t, e.run("", "exec", "--json", "--ephemeral", "hi"))
	if files := sessionFiles(t, e.CodexHome); len(files) != 0 {
		t.Errorf("--ephemeral wrote %v", files)
	}
}

// TestSecretsNeverRecorded: the API key and an Authorization header configured for the
// provider reach the model server but no file the thread leaves behind.
func TestSecretsNeverRecorded(t *testing.T) {
	e := newEnv(t)
	const key, header = "sk-e2e-SECRET-0123456789", "Bearer hdr-SECRET-9876543210"
	cfg, err := os.ReadFile(filepath.Join(e.CodexHome, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg = bytes.Replace(cfg, []byte("[model_providers.mock]\n"), []byte("[model_providers.mock]\nhttp_headers = { \"X-Extra-Auth\" = \""+header+"\" }\n"), 1)
	os.WriteFile(filepath.Join(e.CodexHome, "config.toml"), cfg, 0o600)
	e.ExtraEnv = []string{"MOCK_API_KEY=" + key}
	e.Model.Enqueue(tk.SSE(tk.Created(), tk.FunctionCall("c1", "shell_command", `{"command":"echo done"}`), tk.Completed(tk.Usage{})), answer("ok"))
	threadStarted(t, e.run("", "exec", "--json", "run it"))
	req := e.Model.Requests()[0]
	if got := req.Header.Get("Authorization"); got != "Bearer "+key {
		t.Fatalf("the key did not reach the server (Authorization %q): the test proves nothing", got)
	}
	found := 0
	filepath.WalkDir(e.CodexHome, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(p) == "config.toml" {
			return nil
		}
		data, _ := os.ReadFile(p)
		found++
		for _, secret := range []string{key, "hdr-SECRET"} {
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("%s contains %q", p, secret)
			}
		}
		return nil
	})
	if found == 0 {
		t.Error("no file was recorded")
	}
}

// TestProtoResumeForkRollback: proto records a thread; --resume continues it; --fork copies
// it into a new id (whole or without the last turn); a thread_rolled_back marker in the
// rollout drops the turn on resume; the thread_rollback op goes to the engine.
func TestProtoResumeForkRollback(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("A1"), answer("A2"))
	p := e.startProto()
	conf := p.until("session_configured")
	id := conf[len(conf)-1]["msg"].(map[string]any)["session_id"].(string)
	p.send("1", userInput("one"))
	p.until("task_complete")
	p.send("2", userInput("two"))
	p.until("task_complete")
	p.send("3", `{"type":"shutdown"}`)
	p.until("shutdown_complete")

	// Resume: same id, whole history.
	e.Model.Enqueue(answer("A3"))
	p = e.startProto("--resume", id)
	conf = p.until("session_configured")
	if got := conf[len(conf)-1]["msg"].(map[string]any)["session_id"]; got != id {
		t.Errorf("resumed session_id = %v, want %s", got, id)
	}
	p.send("1", userInput("three"))
	p.until("task_complete")
	p.send("2", `{"type":"thread_rollback","num_turns":1}`)
	evs := p.until2("thread_rolled_back", "error")
	rollbackByEngine := msgType(evs[len(evs)-1]) == "thread_rolled_back"
	p.send("3", `{"type":"shutdown"}`)
	p.until("shutdown_complete")
	reqs := e.Model.Requests()
	if diff := cmp.Diff([]string{"one", "two", "three"}, userTexts(reqs[2])); diff != "" {
		t.Errorf("resumed request (-want +got):\n%s", diff)
	}

	// Fork without the last turn: a new id, the history up to "two".
	e.Model.Enqueue(answer("F1"))
	p = e.startProto("--fork", id, "--fork-drop-turns", "1")
	conf = p.until("session_configured")
	forkID := conf[len(conf)-1]["msg"].(map[string]any)["session_id"].(string)
	if forkID == id {
		t.Fatal("the fork kept the source id")
	}
	p.send("1", userInput("forked"))
	p.until("task_complete")
	p.send("2", `{"type":"shutdown"}`)
	p.until("shutdown_complete")
	want := []string{"one", "two", "forked"} // "three" dropped by the fork
	if rollbackByEngine {
		want = []string{"one", "forked"} // "three" was rolled back, "two" dropped by the fork
	}
	if diff := cmp.Diff(want, userTexts(e.Model.Requests()[3])); diff != "" {
		t.Errorf("fork request (-want +got):\n%s", diff)
	}
	forkPath, _, err := rollout.Find(e.CodexHome, forkID)
	if err != nil {
		t.Fatal(err)
	}
	fr, err := rollout.ReadFile(forkPath)
	if err != nil || fr.Meta.ForkedFromID != id {
		t.Errorf("fork meta = %+v, %v", fr.Meta, err)
	}

	// Rollback through the rollout: the marker as the engine records it drops the last turn
	// on resume.
	if !rollbackByEngine {
		t.Log("the engine does not handle thread_rollback yet; checking the rollout marker alone")
		path, _, _ := rollout.Find(e.CodexHome, id)
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(`{"timestamp":"2026-11-22T08:40:00.000Z","type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":1}}` + "\n")
		f.Close()
	}
	e.Model.Enqueue(answer("R"))
	threadStarted(t, e.run("", "exec", "--json", "resume", id, "after rollback"))
	reqs = e.Model.Requests()
	if diff := cmp.Diff([]string{"one", "two", "after rollback"}, userTexts(reqs[len(reqs)-1])); diff != "" {
		t.Errorf("after rollback (-want +got):\n%s", diff)
	}
}

// until2 reads events until one of two types arrives.
func (p *protoSession) until2(a, b string) []map[string]any {
	p.t.Helper()
	var seen []map[string]any
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-p.events:
			if !ok {
				p.t.Fatalf("stream ended before %s or %s; saw %v", a, b, msgTypes(seen))
			}
			seen = append(seen, ev)
			if ty := msgType(ev); ty == a || ty == b {
				return seen
			}
		case <-timeout:
			p.t.Fatalf("no %s or %s within 30s; saw %v", a, b, msgTypes(seen))
		}
	}
}

// TestArchiveAndUnarchive: an archived thread leaves the listing and cannot be resumed until
// it is unarchived; then exec resume continues it.
func TestArchiveAndUnarchive(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("one!"), answer("two!"), answer("new"))
	id := threadStarted(t, e.run("", "exec", "--json", "one"))
	if _, err := rollout.Archive(e.CodexHome, id); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(e.CodexHome, "archived_sessions")); err != nil {
		t.Fatal(err)
	}
	r := e.run("", "exec", "--json", "resume", id, "two")
	if r.Code != 1 || !strings.Contains(r.Stderr, "archived") {
		t.Errorf("resuming an archived thread: exit %d, %s", r.Code, r.Stderr)
	}
	// --last skips it: a new thread starts.
	if got := threadStarted(t, e.run("", "exec", "--json", "resume", "--last", "new")); got == id {
		t.Error("resume --last picked the archived thread")
	}
	if _, err := rollout.Unarchive(e.CodexHome, id); err != nil {
		t.Fatal(err)
	}
	if got := threadStarted(t, e.run("", "exec", "--json", "resume", id, "two")); got != id {
		t.Errorf("resume after unarchive: thread %s", got)
	}
	if got := userTexts(e.Model.Requests()[2]); !cmp.Equal(got, []string{"one", "two"}) {
		t.Errorf("history after unarchive = %v", got)
	}
}

// TestCodexResumesOurRollout runs the reference Codex 0.169 binary's `exec resume` on a
// rollout we wrote and checks it sends our history to the model.
func TestCodexResumesOurRollout(t *testing.T) {
	bin := tk.ReferenceCodex()
	if bin == "" {
		t.Skip("reference Codex not installed (../shared/tools/reference-codex)")
	}
	e := newEnv(t)
	e.Model.Enqueue(answer("ours"), answer("codex"))
	id := threadStarted(t, e.run("", "exec", "--json", "from gocodex"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "exec", "--json", "--skip-git-repo-check", "resume", id, "from codex")
	cmd.Dir, cmd.Env, cmd.Stdin = e.Workdir, e.environ(), strings.NewReader("")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("codex exec resume: %v\n%s", err, out)
	}
	if got := threadStarted(t, result{Stdout: string(out)}); got != id {
		t.Errorf("codex resumed thread %s, want %s", got, id)
	}
	reqs := e.Model.Requests()
	last := reqs[len(reqs)-1]
	if got := userTexts(last); !cmp.Equal(got, []string{"from gocodex", "from codex"}) {
		t.Errorf("codex's request user messages = %v", got)
	}
	if got := last.MessageTexts("assistant"); !cmp.Equal(got, []string{"ours"}) {
		t.Errorf("codex's request answers = %v", got)
	}
	// Codex appended its turn to our file.
	path, _, _ := rollout.Find(e.CodexHome, id)
	r, err := rollout.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := userTextsOf(r.Reconstruct().History); !cmp.Equal(got, []string{"from gocodex", "from codex"}) {
		t.Errorf("history after codex's turn = %v", got)
	}
}

func userTextsOf(items []protocol.ResponseItem) []string {
	var out []string
	for _, it := range items {
		if rollout.IsUserTurnStart(it) {
			b, _ := json.Marshal(it)
			var m struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			json.Unmarshal(b, &m)
			out = append(out, m.Content[0].Text)
		}
	}
	return out
}

// TestResumeAfterCompaction: the compact op leaves a compacted line; a resumed thread starts
// from the compacted history, not from the items before it.
func TestResumeAfterCompaction(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("long answer one"), answer("SUMMARY-OF-THE-THREAD"))
	p := e.startProto()
	conf := p.until("session_configured")
	id := conf[len(conf)-1]["msg"].(map[string]any)["session_id"].(string)
	p.send("1", userInput("one"))
	p.until("task_complete")
	p.send("2", `{"type":"compact"}`)
	p.until("context_compacted")
	p.until("task_complete")
	p.send("3", `{"type":"shutdown"}`)
	p.until("shutdown_complete")
	path, _, err := rollout.Find(e.CodexHome, id)
	if err != nil {
		t.Fatal(err)
	}
	r, err := rollout.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	compacted := 0
	for _, l := range r.Lines {
		if l.Type == rollout.TypeCompacted {
			compacted++
		}
	}
	if compacted != 1 {
		t.Fatalf("%d compacted lines", compacted)
	}
	e.Model.Enqueue(answer("after"))
	threadStarted(t, e.run("", "exec", "--json", "resume", id, "next"))
	reqs := e.Model.Requests()
	last := reqs[len(reqs)-1]
	all := strings.Join(last.MessageTexts("user"), "\n")
	if !strings.Contains(all, "SUMMARY-OF-THE-THREAD") {
		t.Errorf("resumed request lacks the summary: %q", all)
	}
	if got := last.MessageTexts("assistant"); len(got) != 0 {
		t.Errorf("resumed request still has the compacted answers: %q", got)
	}
}

// crashRun is one `gocodex proto` process driven through scripted turns and killed.
type crashRun struct {
	mu      sync.Mutex
	printed [][]byte // every event line read from stdout before the kill
}

func (c *crashRun) lines() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.printed...)
}

// crashScript queues three turns: a tool call then an answer, a streamed answer with
// reasoning, a plain answer; events are paced so a kill can land anywhere in them.
func crashScript(e *env) {
	pace := func(r tk.Response) tk.Response {
		r.EventDelay = tk.Duration(2 * time.Millisecond)
		return r
	}
	e.Model.Enqueue(
		pace(tk.SSE(tk.Created(), tk.FunctionCall("c1", "shell_command", `{"command":"echo hi"}`), tk.Completed(tk.Usage{Input: 10, Output: 3, Total: 13}))),
		pace(tk.SSE(tk.Created(), tk.AssistantMessageStream("m1", "The ", "command ", "said hi."), tk.Completed(tk.Usage{Input: 20, Output: 4, Total: 24}))),
		pace(tk.SSE(tk.Created(), tk.Reasoning("r1", "Thinking it over"), tk.AssistantMessageStream("m2", "Second ", "answer."), tk.Completed(tk.Usage{Input: 30, Output: 5, Total: 35}))),
		pace(tk.SSE(tk.Created(), tk.AssistantMessageStream("m3", "Third answer."), tk.Completed(tk.Usage{Input: 40, Output: 6, Total: 46}))),
	)
}

// runAndKill starts proto, feeds it the three turns as each one completes, and SIGKILLs it
// after d.
func runAndKill(t *testing.T, e *env, d time.Duration) *crashRun {
	t.Helper()
	cmd := exec.Command(binary, "proto")
	cmd.Dir, cmd.Env = e.Workdir, e.environ()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	run := &crashRun{}
	turnDone := make(chan struct{}, 8)
	readDone := make(chan struct{})
	go func() { // owned by this run: ends when the killed process's stdout closes
		defer close(readDone)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			line := append([]byte(nil), sc.Bytes()...)
			run.mu.Lock()
			run.printed = append(run.printed, line)
			run.mu.Unlock()
			if bytes.Contains(line, []byte(`"type":"task_complete"`)) {
				turnDone <- struct{}{}
			}
		}
	}()
	feedDone := make(chan struct{})
	go func() { // owned by this run: ends after the last input or when the reader ends
		defer close(feedDone)
		for i, text := range []string{"first task", "second task", "third task"} {
			if _, err := io.WriteString(stdin, `{"id":"s`+strconv.Itoa(i)+`","op":`+userInput(text)+"}\n"); err != nil {
				return
			}
			select {
			case <-turnDone:
			case <-readDone:
				return
			}
		}
	}()
	time.Sleep(d)
	_ = cmd.Process.Kill() // SIGKILL: no chance to flush anything
	_ = cmd.Wait()
	<-readDone
	stdin.Close()
	<-feedDone
	return run
}

// TestCrashResume kills the binary at random points of scripted turns, 50 times; every
// rollout left behind reads and resumes, and it holds every persisted event and item that
// had been printed before the kill. The seed is logged so a failure can be replayed.
func TestCrashResume(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv("GOCODEX_CRASH_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("seed %d (GOCODEX_CRASH_SEED replays it)", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	const runs = 50
	stats := map[string]int{}
	for i := 0; i < runs; i++ {
		e := newEnv(t)
		crashScript(e)
		d := time.Duration(rng.IntN(110)) * time.Millisecond
		run := runAndKill(t, e, d)
		stats[checkCrash(t, e, i, d, run)]++
		if t.Failed() {
			t.Fatalf("run %d (kill after %v) failed; seed %d", i, d, seed)
		}
	}
	t.Logf("outcomes over %d kills: %v", runs, stats)
}

// checkCrash verifies one killed run and returns how far it got, for the log.
func checkCrash(t *testing.T, e *env, i int, d time.Duration, run *crashRun) string {
	t.Helper()
	// Every file left behind parses, whatever the kill cut.
	for _, f := range sessionFiles(t, e.CodexHome) {
		if _, err := rollout.ReadFile(f); err != nil {
			t.Errorf("run %d: %v", i, err)
		}
	}
	var id string
	var persisted []protocol.EventMsg
	var answers []string
	turns := 0
	for _, line := range run.lines() {
		var ev protocol.Event
		if err := json.Unmarshal(line, &ev); err != nil {
			continue // an event kind this version cannot decode is not one it records
		}
		switch m := ev.Msg.(type) {
		case protocol.SessionConfiguredEvent:
			id = m.SessionID
		case protocol.AgentMessageEvent:
			answers = append(answers, m.Message)
		case protocol.TurnCompleteEvent:
			turns++
		}
		if rollout.Persisted(ev.Msg) {
			persisted = append(persisted, ev.Msg)
		}
	}
	if id == "" || len(persisted) == 0 {
		return "killed before anything was recorded"
	}
	path, _, err := rollout.Find(e.CodexHome, id)
	if err != nil {
		t.Errorf("run %d (kill after %v): %d recorded events were printed but: %v", i, d, len(persisted), err)
		return ""
	}
	r, err := rollout.ReadFile(path)
	if err != nil {
		t.Errorf("run %d: %v", i, err)
		return ""
	}
	// Each printed event is on disk, byte for byte as it would be recorded.
	onDisk := map[string]int{}
	for _, l := range r.Lines {
		if l.Type == rollout.TypeEventMsg {
			onDisk[string(l.Payload)]++
		}
	}
	for _, m := range persisted {
		b, _ := protocol.MarshalEventMsg(m)
		if onDisk[string(b)] == 0 {
			t.Errorf("run %d (kill after %v): printed %s is not in the rollout", i, d, b)
		}
		onDisk[string(b)]--
	}
	// Each printed answer is in the history a resume starts from.
	res := r.Reconstruct()
	var hist []string
	for _, it := range res.History {
		if m, ok := it.(protocol.MessageItem); ok && m.Role == "assistant" {
			hist = append(hist, m.Content[0].Text)
		}
	}
	for _, a := range answers {
		if !slices.Contains(hist, a) {
			t.Errorf("run %d (kill after %v): printed answer %q is not in the resumed history %q", i, d, a, hist)
		}
	}
	// And the binary resumes it: same thread, the printed answers in the request.
	e.Model = tk.NewServer(t)
	tk.WriteConfig(t, e.CodexHome, e.Model.URL())
	e.Model.Enqueue(answer("resumed"))
	res2 := e.run("", "exec", "--json", "resume", id, "after the crash")
	if got := threadStarted(t, res2); got != id {
		t.Errorf("run %d: resumed thread %s, want %s", i, got, id)
	}
	req := e.Model.Requests()[0]
	// The model would refuse a call without its output or an output without its call.
	calls, outputs := map[any]int{}, map[any]int{}
	for _, it := range req.Input() {
		switch it["type"] {
		case "function_call", "custom_tool_call":
			calls[it["call_id"]]++
		case "function_call_output", "custom_tool_call_output":
			outputs[it["call_id"]]++
		}
	}
	if !cmp.Equal(calls, outputs) {
		t.Errorf("run %d (kill after %v): resumed request pairs calls %v with outputs %v", i, d, calls, outputs)
	}
	got := req.MessageTexts("assistant")
	for _, a := range answers {
		if !slices.Contains(got, a) {
			t.Errorf("run %d: printed answer %q missing from the resumed request %q", i, a, got)
		}
	}
	return fmt.Sprintf("%d turns completed", turns)
}

// TestProtoMessageHistory: add_to_history appends to CODEX_HOME/history.jsonl (mode 0600)
// and get_history_entry_request reads it back under the log id session_configured reports;
// history.persistence = "none" writes nothing.
func TestProtoMessageHistory(t *testing.T) {
	e := newEnv(t)
	p := e.startProto()
	p.until("session_configured")
	p.send("1", `{"type":"add_to_history","text":"remember me"}`)
	p.send("2", `{"type":"shutdown"}`)
	p.until("shutdown_complete")
	path := filepath.Join(e.CodexHome, "history.jsonl")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("history.jsonl mode %v", st.Mode().Perm())
	}
	p = e.startProto()
	conf := p.until("session_configured")
	msg := conf[len(conf)-1]["msg"].(map[string]any)
	logID, count := msg["history_log_id"], msg["history_entry_count"]
	if count != 1.0 || logID == nil || logID == 0.0 {
		t.Fatalf("session_configured history_log_id %v, history_entry_count %v", logID, count)
	}
	p.send("1", fmt.Sprintf(`{"type":"get_history_entry_request","offset":0,"log_id":%.0f}`, logID))
	evs := p.until("get_history_entry_response")
	entry, _ := evs[len(evs)-1]["msg"].(map[string]any)["entry"].(map[string]any)
	if entry["text"] != "remember me" {
		t.Errorf("entry = %v", evs[len(evs)-1])
	}
	p.send("2", `{"type":"shutdown"}`)
	p.until("shutdown_complete")

	// persistence = "none"
	e2 := newEnv(t)
	p = e2.startProto("-c", `history.persistence="none"`)
	p.until("session_configured")
	p.send("1", `{"type":"add_to_history","text":"forget me"}`)
	p.send("2", `{"type":"shutdown"}`)
	p.until("shutdown_complete")
	if _, err := os.Stat(filepath.Join(e2.CodexHome, "history.jsonl")); !os.IsNotExist(err) {
		t.Errorf("history.jsonl written with persistence none: %v", err)
	}
}

// TestCodexResumesOurCompactedRollout: Codex 0.169 accepts our compacted line (without its
// own bookkeeping fields) and starts from the replacement history.
func TestCodexResumesOurCompactedRollout(t *testing.T) {
	bin := tk.ReferenceCodex()
	if bin == "" {
		t.Skip("reference Codex not installed (../shared/tools/reference-codex)")
	}
	e := newEnv(t)
	e.Model.Enqueue(answer("long answer one"), answer("SUMMARY-OF-THE-THREAD"), answer("codex"))
	p := e.startProto()
	conf := p.until("session_configured")
	id := conf[len(conf)-1]["msg"].(map[string]any)["session_id"].(string)
	p.send("1", userInput("one"))
	p.until("task_complete")
	p.send("2", `{"type":"compact"}`)
	p.until("context_compacted")
	p.until("task_complete")
	p.send("3", `{"type":"shutdown"}`)
	p.until("shutdown_complete")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "exec", "--json", "--skip-git-repo-check", "resume", id, "from codex")
	cmd.Dir, cmd.Env, cmd.Stdin = e.Workdir, e.environ(), strings.NewReader("")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("codex exec resume: %v\n%s", err, out)
	}
	reqs := e.Model.Requests()
	last := reqs[len(reqs)-1]
	if all := strings.Join(last.MessageTexts("user"), "\n"); !strings.Contains(all, "SUMMARY-OF-THE-THREAD") || !strings.Contains(all, "from codex") {
		t.Errorf("codex's request lacks the summary or the prompt: %q", all)
	}
	if got := last.MessageTexts("assistant"); len(got) != 0 {
		t.Errorf("codex's request still has the compacted answers: %q", got)
	}
}
