package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocodex/gocodex/internal/rollout"
	tk "github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/protocol"
)

// TestKillRightAfterItemCompleted SIGKILLs `exec --json` the moment it prints the
// item.completed of each kind, while the model's stream is still open (it stalls after the
// item), then resumes: the item is in the resumed history, a tool's real output included —
// never "aborted" for work that ran — and no call is made twice.
func TestKillRightAfterItemCompleted(t *testing.T) {
	stall := func(parts ...tk.Part) tk.Response {
		n := 0
		for _, p := range parts {
			if evs, ok := p.(tk.Events); ok {
				n += len(evs)
			} else {
				n++
			}
		}
		return tk.Stall(n, parts...)
	}
	cases := []struct {
		kind   string
		mcp    bool
		script []tk.Response
		// inHistory checks the resumed request for the item.
		callID, output, message string
	}{
		{kind: "command_execution", callID: "c1", output: "printed-by-command",
			script: []tk.Response{stall(tk.Created(), tk.FunctionCall("c1", "exec_command", `{"cmd":"echo printed-by-command","login":false}`))}},
		{kind: "file_change", callID: "p1", output: "A made.txt",
			script: []tk.Response{stall(tk.Created(), tk.CustomToolCall("p1", "apply_patch", "*** Begin Patch\n*** Add File: made.txt\n+hello\n*** End Patch\n"))}},
		{kind: "mcp_tool_call", mcp: true, callID: "m1", output: "echo: from-mcp",
			script: []tk.Response{stall(tk.Created(), namespacedCall("m1", "mcp__ts", "echo", `{"text":"from-mcp"}`))}},
		{kind: "agent_message", message: "said before the kill",
			script: []tk.Response{stall(tk.Created(), tk.AssistantMessageStream("msg_1", "said before ", "the kill"))}},
		{kind: "reasoning",
			script: []tk.Response{stall(tk.Created(), tk.Reasoning("r1", "thinking hard"))}},
		{kind: "todo_list", callID: "u1", output: "Plan updated",
			// exec prints a todo list's item.completed when the turn ends.
			script: []tk.Response{
				tk.SSE(tk.Created(), tk.FunctionCall("u1", "update_plan", `{"plan":[{"step":"one","status":"in_progress"}]}`), tk.Completed(tk.Usage{Input: 1, Output: 1, Total: 2})),
				answer("planned"),
			}},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			e := newEnv(t)
			co := tk.ConfigOptions{SandboxMode: "workspace-write"}
			if c.mcp {
				co.SandboxMode = "danger-full-access" // MCP calls under a sandbox need approval
			}
			tk.WriteConfig(t, e.CodexHome, e.Model.URL(), co)
			if c.mcp {
				e.addMcpConfig(fmt.Sprintf("[mcp_servers.ts]\ncommand = %q\n", mcpTestServer(t)))
			}
			e.Model.Enqueue(c.script...)
			threadID, item := execUntilItemThenKill(t, e, c.kind)
			if item == nil {
				t.Fatalf("no item.completed of type %s was printed", c.kind)
			}

			path, _, err := rollout.Find(e.CodexHome, threadID)
			if err != nil {
				t.Fatal(err)
			}
			r, err := rollout.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if c.kind == "reasoning" {
				found := false
				for _, it := range r.Reconstruct().History {
					if _, ok := it.(protocol.ReasoningItem); ok {
						found = true
					}
				}
				if !found {
					t.Errorf("the printed reasoning is not in the rollout's history")
				}
			}

			e.Model = tk.NewServer(t)
			tk.WriteConfig(t, e.CodexHome, e.Model.URL(), co)
			if c.mcp {
				e.addMcpConfig(fmt.Sprintf("[mcp_servers.ts]\ncommand = %q\n", mcpTestServer(t)))
			}
			e.Model.Enqueue(answer("resumed"))
			res := e.run("", "exec", "--json", "resume", threadID, "after the kill")
			if res.Code != 0 {
				t.Fatalf("resume: exit %d: %s", res.Code, res.Stderr)
			}
			reqs := e.Model.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d model requests on resume, want 1 (no call made twice)", len(reqs))
			}
			input := reqs[0].Input()
			if c.callID != "" {
				n := 0
				for _, it := range input {
					if it["call_id"] == c.callID && it["type"] != "function_call_output" && it["type"] != "custom_tool_call_output" {
						n++
					}
				}
				if n != 1 {
					t.Errorf("call %s appears %d times in the resumed request", c.callID, n)
				}
				if out := callOutput(input, c.callID); !strings.Contains(out, c.output) {
					t.Errorf("resumed output of %s = %q, want it to hold %q (the tool ran and its end was printed)", c.callID, out, c.output)
				}
			}
			if c.message != "" && !slices.Contains(reqs[0].MessageTexts("assistant"), c.message) {
				t.Errorf("printed message %q missing from the resumed request %q", c.message, reqs[0].MessageTexts("assistant"))
			}
		})
	}
}

// execUntilItemThenKill runs `exec --json` and SIGKILLs it as soon as an item.completed of
// the kind is read; it returns the thread id and that item.
func execUntilItemThenKill(t *testing.T, e *env, kind string) (string, map[string]any) {
	t.Helper()
	cmd := exec.Command(binary, "exec", "--json", "do the thing")
	cmd.Dir, cmd.Env = e.Workdir, e.environ()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(30*time.Second, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	var threadID string
	var item map[string]any
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct {
			Type     string         `json:"type"`
			ThreadID string         `json:"thread_id"`
			Item     map[string]any `json:"item"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		if ev.Type == "thread.started" {
			threadID = ev.ThreadID
		}
		if ev.Type == "item.completed" && ev.Item["type"] == kind {
			_ = cmd.Process.Kill() // SIGKILL: nothing gets flushed after this
			item = ev.Item
			break
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return threadID, item
}
