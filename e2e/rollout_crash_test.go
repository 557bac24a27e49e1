package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/rollout"
	tk "github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/protocol"
)

// crashRun is one `gocodex proto` process driven through scripted turns and killed.
type crashRun struct {
	mu      sync.Mutex
	printed [][]byte // every event line read from stdout before the kill
	// lastTurnAt is when the last turn_complete was read, from the start.
	lastTurnAt time.Duration
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
		pace(tk.SSE(tk.Created(), tk.FunctionCall("c1", "exec_command", `{"cmd":"echo hi","login":false}`), tk.Completed(tk.Usage{Input: 10, Output: 3, Total: 13}))),
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
	start := time.Now()
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
				run.mu.Lock()
				run.lastTurnAt = time.Since(start)
				run.mu.Unlock()
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

// TestCrashResume kills the binary at random points of scripted turns, 200 times; every
// rollout left behind reads and resumes, and it holds every persisted event and item that
// had been printed before the kill, and the output of every tool call whose end was printed
// (never "aborted"). The seed is logged so a failure can be replayed.
func TestCrashResume(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv("GOCODEX_CRASH_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("seed %d (GOCODEX_CRASH_SEED replays it)", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	// The kills spread over the time the three turns take on this machine, measured first.
	cal := newEnv(t)
	crashScript(cal)
	span := runAndKill(t, cal, 5*time.Second).lastTurnAt + 10*time.Millisecond
	t.Logf("three turns take %v here; kills land in [0, %v)", span-10*time.Millisecond, span)
	const runs = 200
	stats := map[string]int{}
	for i := 0; i < runs; i++ {
		e := newEnv(t)
		crashScript(e)
		d := time.Duration(rng.Int64N(int64(span)))
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
	var ended []string // call ids whose end event was printed
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
		case protocol.ExecCommandEndEvent:
			ended = append(ended, m.CallID)
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
	// Each printed event is on disk: byte for byte as a replay of the rollout gives it back
	// (messages and reasoning are recorded as the thread items of the paginated form).
	onDisk := map[string]int{}
	for _, m := range r.InitialMessages() {
		b, _ := protocol.MarshalEventMsg(m)
		onDisk[string(b)]++
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
	for _, id := range ended {
		if out := callOutput(req.Input(), id); out == "" || out == "aborted" {
			t.Errorf("run %d (kill after %v): the end of call %s was printed but the resumed request has output %q", i, d, id, out)
		}
	}
	got := req.MessageTexts("assistant")
	for _, a := range answers {
		if !slices.Contains(got, a) {
			t.Errorf("run %d: printed answer %q missing from the resumed request %q", i, a, got)
		}
	}
	return fmt.Sprintf("%d turns completed", turns)
}

// callOutput is the text of the output answering call id in a request's input ("" if none).
func callOutput(input []map[string]any, id string) string {
	for _, it := range input {
		if (it["type"] == "function_call_output" || it["type"] == "custom_tool_call_output") && it["call_id"] == id {
			switch o := it["output"].(type) {
			case string:
				return o
			case []any:
				b, _ := json.Marshal(o)
				return string(b)
			}
			return fmt.Sprint(it["output"])
		}
	}
	return ""
}
