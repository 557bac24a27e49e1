package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// approvalEnv is a proto session whose policy asks before every command that is not known
// to be safe.
func approvalEnv(t *testing.T, sandbox string) (*env, *protoSession) {
	e := newEnv(t)
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{ApprovalPolicy: "untrusted", SandboxMode: sandbox})
	p := e.startProto()
	p.until("session_configured")
	return e, p
}

func commandCall(callID, cmd string) tk.Response {
	return tk.SSE(tk.Created(), tk.FunctionCall(callID, "exec_command", `{"cmd":"`+cmd+`"}`), tk.Completed(tk.Usage{Input: 5, Output: 1, Total: 6}))
}

func TestApprovalDecisions(t *testing.T) {
	cases := []struct {
		decision   string
		wantRan    bool
		wantOutput string // what the model receives
		wantAbort  bool
	}{
		{decision: `"approved"`, wantRan: true, wantOutput: "Process exited with code 0"},
		{decision: `"denied"`, wantOutput: `exec_command failed: CreateProcess { message: "Rejected(\"rejected by user\")" }`},
		{decision: `"abort"`, wantAbort: true},
		{decision: `{"approved_execpolicy_amendment":{"proposed_execpolicy_amendment":["touch"]}}`, wantRan: true, wantOutput: "Process exited with code 0"},
	}
	for _, tc := range cases {
		t.Run(tc.decision, func(t *testing.T) {
			e, p := approvalEnv(t, "danger-full-access")
			e.Model.Enqueue(commandCall("call_1", "touch marker"), answer("finished"))
			p.send("1", userInput("make a marker"))
			evs := p.until("exec_approval_request")
			req := evs[len(evs)-1]["msg"].(map[string]any)
			if req["call_id"] != "call_1" || !strings.Contains(strings.Join(toStrings(req["command"]), " "), "touch marker") {
				t.Fatalf("approval request = %v", req)
			}
			p.send("2", `{"type":"exec_approval","id":"call_1","decision":`+tc.decision+`}`)
			end := "task_complete"
			if tc.wantAbort {
				end = "turn_aborted"
			}
			p.until(end)
			_, err := os.Stat(filepath.Join(e.Workdir, "marker"))
			if ran := err == nil; ran != tc.wantRan {
				t.Errorf("command ran = %v, want %v", ran, tc.wantRan)
			}
			reqs := e.Model.Requests()
			if tc.wantAbort {
				if len(reqs) != 1 {
					t.Errorf("%d model requests after abort, want 1", len(reqs))
				}
				return
			}
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2", len(reqs))
			}
			if out := functionOutput(t, reqs[1].JSON, "call_1"); !strings.Contains(out, tc.wantOutput) {
				t.Errorf("model received %q, want %q", out, tc.wantOutput)
			}
			if strings.Contains(tc.decision, "amendment") {
				rules, err := os.ReadFile(filepath.Join(e.CodexHome, "rules", "default.rules"))
				if err != nil || !strings.Contains(string(rules), `prefix_rule(pattern=["touch"], decision="allow")`) {
					t.Errorf("default.rules = %q, %v", rules, err)
				}
			}
		})
	}
}

func TestApprovedForSessionSuppressesSecondPrompt(t *testing.T) {
	e, p := approvalEnv(t, "danger-full-access")
	e.Model.Enqueue(commandCall("call_1", "touch again"), commandCall("call_2", "touch again"), answer("finished"))
	p.send("1", userInput("twice"))
	p.until("exec_approval_request")
	p.send("2", `{"type":"exec_approval","id":"call_1","decision":"approved_for_session"}`)
	evs := p.until("task_complete")
	for _, ev := range evs {
		if msgType(ev) == "exec_approval_request" {
			t.Fatalf("asked again after approved_for_session: %v", ev)
		}
	}
	if n := countType(evs, "exec_command_end"); n != 2 {
		t.Errorf("%d commands ran, want 2", n)
	}
}

// TestUntrustedAsksEvenForReadOnlyCommands pins Codex 0.169's behaviour, which differs from
// older write-ups: under untrusted, exec_command asks even for a known-safe `ls`.
func TestUntrustedAsksEvenForReadOnlyCommands(t *testing.T) {
	e, p := approvalEnv(t, "danger-full-access")
	e.Model.Enqueue(commandCall("call_1", "ls && pwd"), answer("listed"))
	p.send("1", userInput("list"))
	p.until("exec_approval_request")
	p.send("2", `{"type":"exec_approval","id":"call_1","decision":"approved"}`)
	evs := p.until("task_complete")
	if countType(evs, "exec_command_end") != 1 {
		t.Errorf("events: %v", msgTypes(evs))
	}
}

func countType(evs []map[string]any, typ string) int {
	n := 0
	for _, ev := range evs {
		if msgType(ev) == typ {
			n++
		}
	}
	return n
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// exec has nobody to ask: under a policy that asks (untrusted here, chosen in config.toml),
// an approval request is declined at once, the command does not run, the model is told, and
// the run ends instead of waiting for an answer that never comes (it hung before).
func TestExecDeclinesApprovalRequests(t *testing.T) {
	e := newEnv(t)
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{ApprovalPolicy: "untrusted", SandboxMode: "workspace-write"})
	marker := filepath.Join(e.Workdir, "made-by-the-command")
	e.Model.Enqueue(commandCall("call_1", "touch "+marker), answer("it was declined"))
	r := e.run("", "exec", "start something")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran without approval")
	}
	if !strings.Contains(r.Stderr+r.Stdout, "no user is present in exec mode to approve; declined") {
		t.Errorf("the output does not say the approval was declined:\nstdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	}
	reqs := e.Model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if out, ok := reqs[1].ToolOutput("call_1"); !ok || !strings.Contains(strings.ToLower(fmt.Sprint(out)), "reject") && !strings.Contains(strings.ToLower(fmt.Sprint(out)), "declin") {
		t.Errorf("the model was not told the command was declined: %v", out)
	}
}
