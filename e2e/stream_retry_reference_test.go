package e2e

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// A response cut short or stalled mid-message and retried: Codex 0.169 starts the retried
// response's items afresh (the app-server's sequences are the "… retried" scenarios of
// appServerScenarios); here the exec --json side of the same scripts.

// messageThenCompleted is an answer streamed as deltas: the first response of the retry
// scenarios, which the server cuts or stalls after the message's first two deltas.
func messageThenCompleted() []tk.Part {
	return []tk.Part{tk.Created(), tk.AssistantMessageStream("msg_1", "part", "ial", " answer"), tk.Completed(tk.Usage{Input: 10, Output: 3, Total: 13})}
}

// cutMidMessage ends the stream cleanly after the message's second delta.
func cutMidMessage() tk.Response { return tk.Cut(4, messageThenCompleted()...) }

// stallMidMessage sends nothing after the message's second delta (an idle timeout).
func stallMidMessage() tk.Response { return tk.Stall(4, messageThenCompleted()...) }

// retriedAnswer is the whole answer the retried request gets, as a message of its own.
func retriedAnswer() tk.Response {
	return tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_2", "who", "le"), tk.Completed(tk.Usage{Input: 10, Output: 2, Total: 12}))
}

// reasoningCut cuts the stream in the middle of a reasoning summary; reasoningRetried is
// the retried response, reasoning again and answering.
func reasoningCut() tk.Response {
	return tk.Cut(4, tk.Created(), tk.Reasoning("rs_1", "Thinking it over"), tk.AssistantMessageStream("msg_1", "partial"), tk.Completed(tk.Usage{}))
}

func reasoningRetried() tk.Response {
	return tk.SSE(tk.Created(), tk.Reasoning("rs_2", "Thinking again"), tk.AssistantMessageStream("msg_2", "who", "le"), tk.Completed(tk.Usage{Input: 10, Output: 2, Total: 12}))
}

// execRetryScenarios are run through exec --json by both binaries.
var execRetryScenarios = []struct {
	name   string
	idleMS int
	script func() []tk.Response
}{
	{name: "cut mid-message", script: func() []tk.Response { return []tk.Response{cutMidMessage(), retriedAnswer()} }},
	{name: "stalled mid-message", idleMS: 300, script: func() []tk.Response { return []tk.Response{stallMidMessage(), retriedAnswer()} }},
	{name: "reasoning cut", script: func() []tk.Response { return []tk.Response{reasoningCut(), reasoningRetried()} }},
}

const execRetryFile = "testdata/codex-0.169-exec-stream-retries.json"

var recordExecRetries = flag.Bool("record-exec-retries", false, "rewrite "+execRetryFile+" from the reference binary (GOCODEX_REFERENCE_CODEX)")

// execRetryLines runs a scenario through bin and returns its exec --json lines, the thread
// id aside.
func execRetryLines(t *testing.T, bin string, idleMS int, script []tk.Response) []string {
	r := runScenario(t, bin, 2, idleMS, script, nil)
	if r.Code != 0 {
		t.Fatalf("%s exec: %+v", bin, r)
	}
	var out []string
	for _, l := range jsonl(t, r.Stdout) {
		if _, ok := l["thread_id"]; ok {
			l["thread_id"] = "THREAD"
		}
		b, _ := json.Marshal(l)
		out = append(out, string(b))
	}
	return out
}

// TestExecStreamRetryMatchesReference: after a cut or a stall mid-stream, exec --json shows
// what Codex 0.169 shows (the reconnect notice, then only the retried response's items),
// compared with the recording and, where the reference is installed, live (record again
// with -record-exec-retries).
func TestExecStreamRetryMatchesReference(t *testing.T) {
	ref := os.Getenv("GOCODEX_REFERENCE_CODEX")
	if *recordExecRetries && ref == "" {
		t.Fatal("-record-exec-retries needs GOCODEX_REFERENCE_CODEX")
	}
	recorded := map[string][]string{}
	if data, err := os.ReadFile(execRetryFile); err == nil {
		if err := json.Unmarshal(data, &recorded); err != nil {
			t.Fatalf("%s: %v", execRetryFile, err)
		}
	} else if !*recordExecRetries {
		t.Fatal(err)
	}
	for _, sc := range execRetryScenarios {
		t.Run(sc.name, func(t *testing.T) {
			if *recordExecRetries {
				recorded[sc.name] = execRetryLines(t, ref, sc.idleMS, sc.script())
				return
			}
			ours := execRetryLines(t, binary, sc.idleMS, sc.script())
			if diff := cmp.Diff(recorded[sc.name], ours); diff != "" {
				t.Errorf("exec --json (-codex 0.169 recorded +ours):\n%s", diff)
			}
			if ref != "" {
				if diff := cmp.Diff(execRetryLines(t, ref, sc.idleMS, sc.script()), ours); diff != "" {
					t.Errorf("exec --json (-codex 0.169 live +ours):\n%s", diff)
				}
			}
		})
	}
	if *recordExecRetries {
		data, err := json.MarshalIndent(recorded, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.FromSlash(execRetryFile), append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
