package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// sandboxEnv confines commands to the work tree: /tmp and $TMPDIR are not writable roots,
// so a scratch directory under the test's temp dir is "outside".
func sandboxEnv(t *testing.T, approval string) *env {
	e := newEnv(t)
	e.confineToWorkdir(approval)
	return e
}

// confineToWorkdir configures workspace-write with the work tree as the only writable root.
func (e *env) confineToWorkdir(approval string) {
	tk.WriteConfig(e.t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{
		ApprovalPolicy: approval,
		SandboxMode:    "workspace-write",
		Extra:          "sandbox_workspace_write = { exclude_slash_tmp = true, exclude_tmpdir_env_var = true }",
	})
}

func TestSandboxDenialEscalatesAndReruns(t *testing.T) {
	e := sandboxEnv(t, "on-failure")
	outside := filepath.Join(t.TempDir(), "escaped")
	e.Model.Enqueue(commandCall("call_1", "touch "+outside), answer("done"))
	p := e.startProto()
	p.until("session_configured")
	p.send("1", userInput("write outside"))
	evs := p.until("exec_approval_request")
	req := evs[len(evs)-1]["msg"].(map[string]any)
	if reason, _ := req["reason"].(string); reason != "command failed; retry without sandbox?" {
		t.Errorf("approval reason = %q", reason)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("the sandboxed attempt wrote outside the work tree")
	}
	p.send("2", `{"type":"exec_approval","id":"call_1","decision":"approved"}`)
	p.until("task_complete")
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("the approved rerun did not write: %v", err)
	}
	out := functionOutput(t, e.Model.Requests()[1].JSON, "call_1")
	if !strings.Contains(out, "Process exited with code 0") {
		t.Errorf("model received:\n%s", out)
	}
}

func TestSandboxDenialGoesToModelUnderOnRequest(t *testing.T) {
	e := sandboxEnv(t, "on-request")
	outside := filepath.Join(t.TempDir(), "escaped")
	e.Model.Enqueue(commandCall("call_1", "touch "+outside), answer("done"))
	p := e.startProto()
	p.until("session_configured")
	p.send("1", userInput("write outside"))
	evs := p.until("task_complete")
	if countType(evs, "exec_approval_request") != 0 {
		t.Fatalf("asked under on-request: %v", msgTypes(evs))
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("wrote outside the work tree")
	}
	out := functionOutput(t, e.Model.Requests()[1].JSON, "call_1")
	if !strings.Contains(strings.ToLower(out), "permission denied") && !strings.Contains(strings.ToLower(out), "read-only") {
		t.Errorf("model did not get the denial:\n%s", out)
	}
	// Inside the work tree writing works, and the mechanism was reported once.
	if countType(evs, "background_event") != 1 {
		t.Errorf("background events: %d", countType(evs, "background_event"))
	}
}

func TestSandboxAllowsWorkTreeWrites(t *testing.T) {
	e := sandboxEnv(t, "never")
	e.Model.Enqueue(commandCall("call_1", "echo hi > inside.txt"), answer("done"))
	r := e.run("", "exec", "--json", "write inside")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if got := readFile(t, filepath.Join(e.Workdir, "inside.txt")); got != "hi\n" {
		t.Errorf("inside.txt = %q", got)
	}
}

func TestCommandEnvironment(t *testing.T) {
	e := newEnv(t)
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{
		ApprovalPolicy: "never",
		SandboxMode:    "workspace-write",
		Extra:          "shell_environment_policy = { ignore_default_excludes = false, set = { GOCODEX_SET = \"from-config\" } }",
	})
	e.ExtraEnv = []string{"MY_API_TOKEN=hide-me", "PLAIN_VAR=keep-me"}
	e.Model.Enqueue(commandCall("call_1", "env"), answer("done"))
	r := e.run("", "exec", "--json", "show env")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	lines := jsonl(t, r.Stdout)
	threadID := lines[0]["thread_id"].(string)
	out := functionOutput(t, e.Model.Requests()[1].JSON, "call_1")
	for _, want := range []string{"CODEX_THREAD_ID=" + threadID, "CODEX_SANDBOX_NETWORK_DISABLED=1", "GOCODEX_SET=from-config", "PLAIN_VAR=keep-me"} {
		if !strings.Contains(out, want) {
			t.Errorf("command environment lacks %s", want)
		}
	}
	for _, hidden := range []string{"MY_API_TOKEN", "MOCK_API_KEY"} {
		if strings.Contains(out, hidden) {
			t.Errorf("command environment has %s despite the default excludes", hidden)
		}
	}
}

// `gocodex sandbox linux` lets a person run anything under the policy the agent would get.
func TestSandboxCommand(t *testing.T) {
	e := newEnv(t)
	outside := filepath.Join(t.TempDir(), "outside")
	r := e.run("", "sandbox", "linux", "--full-auto", "-c", "sandbox_workspace_write.exclude_slash_tmp=true",
		"-c", "sandbox_workspace_write.exclude_tmpdir_env_var=true", "--",
		"bash", "-c", "touch inside && touch "+outside+"; echo net=$CODEX_SANDBOX_NETWORK_DISABLED")
	if _, err := os.Stat(filepath.Join(e.Workdir, "inside")); err != nil {
		t.Errorf("writing inside the work tree failed: %v\n%s", err, r.Stderr)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("wrote outside the work tree")
	}
	if !strings.Contains(r.Stdout, "net=1") {
		t.Errorf("stdout %q: the network is not marked off", r.Stdout)
	}
	if !strings.Contains(strings.ToLower(r.Stderr), "denied") && !strings.Contains(strings.ToLower(r.Stderr), "read-only") {
		t.Errorf("stderr %q does not show the denial", r.Stderr)
	}
}

// `gocodex sandbox --explain` (and `sandbox linux --explain`) prints which mechanisms are active
// on this machine, one line each, then gocodex's own protections (issue 28's list).
func TestSandboxExplain(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{{"sandbox", "--explain"}, {"sandbox", "linux", "--explain"}} {
		r := e.run("", args...)
		if r.Code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.Code, r.Stderr)
		}
		for _, want := range []string{"mechanism: ", "seccomp", "no_new_privs", "new session", "landlock", "mount namespace", "PID namespace", "capabilities",
			"setuid refusal", "nosuid", "placeholders", "credential hiding", "unix datagrams",
			"patches", "project trust", "git programs", "headless approvals"} {
			if !strings.Contains(r.Stdout, want) {
				t.Errorf("%v does not mention %q:\n%s", args, want, r.Stdout)
			}
		}
	}
}

// A command the model leaves running in the background is killed with its sandbox when
// `exec` ends (the helper's whole process group, SIGKILL): the placeholders that held the
// absent .codex, .agents and .aws read-only for it are gone with it, in the work tree and in
// the test's TMPDIR (both writable roots here), as they are after a command that ends by
// itself.
func TestSandboxBackgroundCommandKilledLeavesNoPlaceholders(t *testing.T) {
	e := newEnv(t)
	tmp := t.TempDir()
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{
		ApprovalPolicy: "never",
		SandboxMode:    "workspace-write",
		Extra:          "sandbox_workspace_write = { exclude_slash_tmp = true }",
	})
	e.Model.Enqueue(tk.SSE(tk.Created(), tk.FunctionCall("call_1", "exec_command", `{"cmd":"sleep 30","yield_time_ms":300}`), tk.Completed(tk.Usage{Input: 5, Output: 1, Total: 6})),
		answer("left it running"))
	e.ExtraEnv = append(e.ExtraEnv, "TMPDIR="+tmp)
	r := e.run("", "exec", "--json", "start something")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if out := functionOutput(t, e.Model.Requests()[1].JSON, "call_1"); !strings.Contains(out, "Process running with session ID") {
		t.Fatalf("the command did not stay running:\n%s", out)
	}
	for _, dir := range []string{e.Workdir, tmp} {
		for _, name := range []string{".codex", ".agents", ".aws"} {
			if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
				t.Errorf("%s left behind", filepath.Join(dir, name))
			}
		}
	}
}

// `gocodex sandbox macos` (alias seatbelt) and `sandbox windows` exist as in Codex, and on
// Linux they refuse, naming the command that works here, without running anything.
func TestSandboxOtherPlatformsRefuseOnLinux(t *testing.T) {
	e := newEnv(t)
	marker := filepath.Join(e.Workdir, "ran")
	for _, tc := range []struct{ sub, system string }{{"macos", "macOS"}, {"seatbelt", "macOS"}, {"windows", "Windows"}} {
		r := e.run("", "sandbox", tc.sub, "--", "touch", marker)
		want := "the " + tc.system + " sandbox only exists on " + tc.system + ", not on linux; use `gocodex sandbox linux` here"
		if r.Code == 0 || !strings.Contains(r.Stderr, want) {
			t.Errorf("sandbox %s: exit %d, stderr %q; want a refusal saying %q", tc.sub, r.Code, r.Stderr, want)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("sandbox %s ran the command", tc.sub)
		}
	}
}
