package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// childOutput is what the child's command printed, from the child's last request.
func childOutput(run subagentRun) string {
	for i := len(run.Requests) - 1; i >= 0; i-- {
		r := run.Requests[i]
		if r.Agent != "child" {
			continue
		}
		req := tk.Request{Body: r.Body}
		if out, ok := req.ToolOutput("call_child_exec"); ok {
			b, _ := json.Marshal(out)
			return string(b)
		}
	}
	return ""
}

// TestSubagentUnderReadOnlyParentCannotWrite: the child runs on its parent's sandbox; under
// read-only its write fails, judged from outside (the file is not there), as in Codex.
func TestSubagentUnderReadOnlyParentCannotWrite(t *testing.T) {
	for name, bin := range subagentBinaries() {
		t.Run(name, func(t *testing.T) {
			e, run := runSubagentScriptWith(t, bin, subagentReplyWith("touch child-wrote.txt"), "--sandbox", "read-only")
			if _, err := os.Stat(filepath.Join(e.Workdir, "child-wrote.txt")); err == nil {
				t.Fatalf("%s: the child of a read-only parent wrote a file", name)
			}
			if out := childOutput(run); !strings.Contains(out, "Read-only file system") {
				t.Errorf("%s: the child's command output does not say why it failed: %s", name, out)
			}
		})
	}
}

// TestInterruptingTheParentStopsTheChild: Ctrl-C on exec while the child runs a long
// command: gocodex ends promptly, the child's turn is aborted (its rollout says so) and its
// command is gone. (exec ends every thread with it; that the interrupt itself reaches the
// child while the process lives is TestInterruptOfTheParentReachesTheChildOnTheAppServer.)
func TestInterruptingTheParentStopsTheChild(t *testing.T) {
	e := newEnv(t)
	const marker = "61.4242"
	e.Model.SetDefault(tk.Replying(subagentReplyWith("sleep " + marker)))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "exec", "--json", "--skip-git-repo-check", "--enable", "multi_agent_v2", rootPrompt)
	cmd.Dir, cmd.Env = e.Workdir, e.environ()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the child's command runs.
	for !sleeping(marker) {
		if ctx.Err() != nil {
			t.Fatalf("the child's command never started\nstdout: %s\nstderr: %s", stdout.String(), stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	_ = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("gocodex did not end after the interrupt\nstderr: %s", stderr.String())
	}
	if sleeping(marker) {
		t.Errorf("the child's command outlived the interrupt")
	}
	run := collectSubagentRun(t, e, stdout.String())
	_, child := sessionMetas(t, run)
	childID, _ := child["id"].(string)
	aborted := false
	for _, lines := range run.Rollouts {
		if m, _ := lines[0]["payload"].(map[string]any); m["id"] != childID {
			continue
		}
		for _, l := range lines {
			if p, _ := l["payload"].(map[string]any); l["type"] == "event_msg" && p["type"] == "turn_aborted" {
				aborted = true
			}
		}
	}
	if !aborted {
		t.Errorf("the child's rollout records no aborted turn: the interrupt did not reach it")
	}
}

// sleeping reports whether a `sleep <marker>` process runs on the machine.
func sleeping(marker string) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte("sleep\x00"+marker)) {
			return true
		}
	}
	return false
}

// TestResumeOfAParentWithFinishedChildren: `exec resume` of a root whose child has finished
// continues the whole exchange (the child's answer is in the history sent), in gocodex and,
// on gocodex's own rollouts, in Codex.
func TestResumeOfAParentWithFinishedChildren(t *testing.T) {
	e, run := runSubagentScript(t, binary)
	root, _ := sessionMetas(t, run)
	rootID, _ := root["id"].(string)
	for name, bin := range subagentBinaries() {
		t.Run(name, func(t *testing.T) {
			before := len(e.Model.Requests())
			res := e.runBin(bin, "", "exec", "--json", "--skip-git-repo-check", "--enable", "multi_agent_v2", "resume", rootID, "and now?")
			if res.Code != 0 {
				t.Fatalf("%s resume: exit %d\nstdout: %s\nstderr: %s", name, res.Code, res.Stdout, res.Stderr)
			}
			reqs := e.Model.Requests()[before:]
			if len(reqs) == 0 {
				t.Fatalf("%s resume sent no request", name)
			}
			last := reqs[len(reqs)-1]
			if !inputHas(last, "Message Type: FINAL_ANSWER") || !inputHas(last, childAnswer) || !inputHas(last, "and now?") {
				t.Errorf("%s: the resumed root's request lacks the child's answer or the new prompt", name)
			}
		})
	}
}

// TestSubagentOnAnotherProvider (gocodex's own; Codex has none): spawn_agent's model
// "provider/model" runs the child on another configured provider, here a second scripted
// server; the root's requests stay on its own.
func TestSubagentOnAnotherProvider(t *testing.T) {
	e, other := runWithOtherProvider(t, "", map[string]any{"model": "other/gpt-6-luna", "fork_turns": "none"})
	for _, r := range childRequestsOn(t, e.Model, other) {
		if r.JSON["model"] != "gpt-6-luna" {
			t.Errorf("the child asked for model %v, want gpt-6-luna", r.JSON["model"])
		}
	}
}

// runWithOtherProvider runs the sub-agent script through exec with a second scripted
// provider "other" configured (and extraConfig), the root spawning with spawnArgs.
func runWithOtherProvider(t *testing.T, extraConfig string, spawnArgs map[string]any) (*env, *tk.Server) {
	t.Helper()
	e := newEnv(t)
	other := tk.NewServer(t)
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{Extra: "\n[model_providers.other]\nname = \"Other\"\nbase_url = \"" +
		other.BaseURL() + "\"\nwire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\n" + extraConfig})
	exec := map[string]any{"cmd": childCommand, "yield_time_ms": 30000}
	reply := tk.Replying(func(r tk.Request) tk.Response { return routedReply(r, exec, spawnArgs) })
	e.Model.SetDefault(reply)
	other.SetDefault(reply)
	res := e.run("", "exec", "--json", "--skip-git-repo-check", "--enable", "multi_agent_v2", rootPrompt)
	if res.Code != 0 || !strings.Contains(res.Stdout, "root reports: "+childAnswer) {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", res.Code, res.Stdout, res.Stderr)
	}
	return e, other
}

// childRequestsOn checks that the child's requests (2 in the script) all went to other and
// the root's to root, and returns the child's.
func childRequestsOn(t *testing.T, root, other *tk.Server) []tk.Request {
	t.Helper()
	for _, r := range root.Requests() {
		if isChild(r) {
			t.Errorf("a child request reached the root's provider")
		}
	}
	var children []tk.Request
	for _, r := range other.Requests() {
		if !isChild(r) {
			t.Errorf("a root request reached the child's provider")
			continue
		}
		children = append(children, r)
	}
	if len(children) != 2 {
		t.Errorf("the child's provider got %d requests, want 2", len(children))
	}
	return children
}

// TestSubagentsThroughTheMcpServer: the mcp-server's codex tool, with multi_agent_v2 in its
// config, runs the same exchange: the child runs its command and the root reports its answer.
func TestSubagentsThroughTheMcpServer(t *testing.T) {
	e := newEnv(t)
	e.Model.SetDefault(tk.Replying(subagentReply))
	s := e.startMcpServer(nil)
	res := s.call("codex", map[string]any{"prompt": rootPrompt, "cwd": e.Workdir, "config": map[string]any{"features": map[string]any{"multi_agent_v2": true}}})
	if res.IsError || mcpText(t, res) != "root reports: "+childAnswer {
		t.Fatalf("codex result = %+v", res)
	}
}
