package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// benchChildren is how many children the benchmark's root spawns at once.
const benchChildren = 8

// benchWork is each child's (and each sequential turn's) command: a second of waiting, as
// a build or a test run would.
const benchWork = "sleep 1; echo done"

// fanOutReply is the benchmark's routed script: the root spawns benchChildren children in
// one response, waits until every final answer is in, and answers; each child runs benchWork
// and answers.
func fanOutReply(r tk.Request) tk.Response {
	if isChild(r) {
		if !hasOutput(r, "call_child_exec") {
			args, _ := json.Marshal(map[string]any{"cmd": benchWork, "yield_time_ms": 30000})
			return tk.SSE(tk.Created(), tk.FunctionCall("call_child_exec", "exec_command", string(args)), usage())
		}
		return tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_child", "child done"), usage())
	}
	if !hasOutput(r, "call_spawn_0") {
		parts := []tk.Part{tk.Created()}
		for i := range benchChildren {
			args, _ := json.Marshal(map[string]string{"task_name": fmt.Sprintf("worker_%d", i), "message": fmt.Sprintf("CHILD-TASK %d: run the work", i)})
			parts = append(parts, nsCall(fmt.Sprintf("call_spawn_%d", i), "collaboration", "spawn_agent", string(args)))
		}
		return tk.SSE(append(parts, usage())...)
	}
	answers, waits := 0, 0
	for _, it := range r.Input() {
		b, _ := json.Marshal(it)
		if it["type"] == "agent_message" && strings.Contains(string(b), "FINAL_ANSWER") {
			answers++
		}
		if id, _ := it["call_id"].(string); it["type"] == "function_call_output" && strings.HasPrefix(id, "call_wait_") {
			waits++
		}
	}
	if answers < benchChildren {
		return tk.SSE(tk.Created(), nsCall(fmt.Sprintf("call_wait_%d", waits), "collaboration", "wait_agent", `{"timeout_ms":60000}`), usage())
	}
	return tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_root", fmt.Sprintf("all %d children answered", answers)), usage())
}

// sequentialReply is one plain turn doing the same work.
func sequentialReply(r tk.Request) tk.Response {
	if !hasOutput(r, "call_work") {
		args, _ := json.Marshal(map[string]any{"cmd": benchWork, "yield_time_ms": 30000})
		return tk.SSE(tk.Created(), tk.FunctionCall("call_work", "exec_command", string(args)), usage())
	}
	return tk.SSE(tk.Created(), tk.AssistantMessageStream("msg", "done"), usage())
}

// timedRun runs the binary once and returns its wall time and peak RSS (KiB).
func timedRun(t *testing.T, e *env, args ...string) (time.Duration, int64, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir, cmd.Env = e.Workdir, e.environ()
	start := time.Now()
	out, err := cmd.Output()
	wall := time.Since(start)
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return wall, peakRSSKiB(cmd.ProcessState), string(out)
}

// TestBenchSubagentsFanOut measures 8 children running at once on one scripted server
// against 8 sequential turns doing the same work, and the peak memory each child adds
// (GOCODEX_BENCH=1; figures in the log).
func TestBenchSubagentsFanOut(t *testing.T) {
	if os.Getenv("GOCODEX_BENCH") == "" {
		t.Skip("GOCODEX_BENCH is not set")
	}
	e := newEnv(t)
	e.Model.SetDefault(tk.Replying(fanOutReply))
	fanWall, fanRSS, out := timedRun(t, e, "exec", "--json", "--skip-git-repo-check", "--enable", "multi_agent_v2",
		"-c", fmt.Sprintf("agents.max_threads=%d", benchChildren+1), "fan out")
	if !strings.Contains(out, fmt.Sprintf("all %d children answered", benchChildren)) {
		t.Fatalf("the fan-out did not finish:\n%s", out)
	}

	s := newEnv(t)
	s.Model.SetDefault(tk.Replying(sequentialReply))
	var seqWall time.Duration
	var oneRSS int64
	for range benchChildren {
		w, rss, _ := timedRun(t, s, "exec", "--json", "--skip-git-repo-check", "one turn")
		seqWall += w
		oneRSS = max(oneRSS, rss)
	}
	t.Logf("%d children at once: wall %v, peak RSS %d KiB", benchChildren, fanWall.Round(time.Millisecond), fanRSS)
	t.Logf("%d sequential turns:  wall %v, peak RSS of one %d KiB", benchChildren, seqWall.Round(time.Millisecond), oneRSS)
	t.Logf("speed-up %.1fx; peak memory per child %.0f KiB ((fan-out peak - one turn's peak) / %d)",
		float64(seqWall)/float64(fanWall), float64(fanRSS-oneRSS)/benchChildren, benchChildren)
}
