package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// subagentRecordDir holds what Codex 0.169 did on the sub-agent script (recorded by
// TestRecordCodexSubagents with GOCODEX_RECORD=1).
const subagentRecordDir = "testdata/codex_subagents"

// subagentRun is one binary's run of the sub-agent script.
type subagentRun struct {
	Stdout   string
	Requests []recordedRequest
	Rollouts map[string][]map[string]any // file base name -> lines
}

type recordedRequest struct {
	Agent  string            `json:"agent"` // root or child
	Header map[string]string `json:"header"`
	Body   json.RawMessage   `json:"body"`
}

// subagentHeaders are the request headers that tell agents apart.
var subagentHeaders = []string{"x-openai-subagent", "x-codex-parent-thread-id", "session-id", "thread-id", "x-codex-turn-metadata"}

// runSubagentScript runs bin's exec --json on the sub-agent script under the given sandbox.
func runSubagentScript(t *testing.T, bin string, extraArgs ...string) (*env, subagentRun) {
	return runSubagentScriptWith(t, bin, subagentReply, extraArgs...)
}

// runSubagentScriptWith runs bin on a routed script of its own.
func runSubagentScriptWith(t *testing.T, bin string, reply func(tk.Request) tk.Response, extraArgs ...string) (*env, subagentRun) {
	e := newEnv(t)
	e.Model.SetDefault(tk.Replying(reply))
	saved := binary
	binary = bin
	defer func() { binary = saved }()
	args := append([]string{"exec", "--json", "--skip-git-repo-check", "--enable", "multi_agent_v2"}, extraArgs...)
	res := e.run("", append(args, rootPrompt)...)
	if res.Code != 0 {
		t.Fatalf("%s exec: exit %d\nstdout: %s\nstderr: %s", bin, res.Code, res.Stdout, res.Stderr)
	}
	return e, collectSubagentRun(t, e, res.Stdout)
}

// collectSubagentRun gathers a finished run's requests and rollouts.
func collectSubagentRun(t *testing.T, e *env, stdout string) subagentRun {
	run := subagentRun{Stdout: stdout, Rollouts: map[string][]map[string]any{}}
	for _, r := range e.Model.Requests() {
		rec := recordedRequest{Agent: "root", Header: map[string]string{}, Body: r.Body}
		if isChild(r) {
			rec.Agent = "child"
		}
		for _, h := range subagentHeaders {
			if v := r.Header.Get(h); v != "" {
				rec.Header[h] = v
			}
		}
		run.Requests = append(run.Requests, rec)
	}
	_ = filepath.WalkDir(filepath.Join(e.CodexHome, "sessions"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return nil
		}
		b, _ := os.ReadFile(p)
		run.Rollouts[filepath.Base(p)] = jsonl(t, string(b))
		return nil
	})
	return run
}

// TestRecordCodexSubagents records Codex 0.169 on the sub-agent script into testdata, for
// the comparisons that run without the reference binary.
func TestRecordCodexSubagents(t *testing.T) {
	if os.Getenv("GOCODEX_RECORD") == "" {
		t.Skip("GOCODEX_RECORD is not set")
	}
	ref := referenceBinary(t)
	_, run := runSubagentScript(t, ref)
	if err := os.MkdirAll(subagentRecordDir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, v any) {
		b, err := json.MarshalIndent(v, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(subagentRecordDir, name), append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(subagentRecordDir, "exec.jsonl"), []byte(run.Stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	write("requests.json", run.Requests)
	names := make([]string, 0, len(run.Rollouts))
	for n := range run.Rollouts {
		names = append(names, n)
	}
	sort.Strings(names)
	var rollouts [][]map[string]any
	for _, n := range names {
		rollouts = append(rollouts, run.Rollouts[n])
	}
	write("rollouts.json", rollouts)
}
