package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// fleetWorld is a Slurm cluster, a scripted model and repositories for `gocodex fleet`.
type fleetWorld struct {
	*env
	Cluster *tk.SlurmCluster
	Out     string
	Key     string
	// Flags are given to every fleet status (--s3-endpoint...).
	Flags []string
}

func newFleetWorld(t *testing.T) *fleetWorld {
	cluster := tk.StartSlurm(t)
	e := newEnv(t)
	// The agent's own sandbox, as a user's tasks would run.
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{SandboxMode: "workspace-write"})
	w := &fleetWorld{env: e, Cluster: cluster, Out: t.TempDir(), Key: "sk-fleet-" + fmt.Sprint(time.Now().UnixNano())}
	e.ExtraEnv = append(e.ExtraEnv, "MOCK_API_KEY="+w.Key)
	e.ExtraEnv = append(e.ExtraEnv, cluster.Env()...)
	return w
}

// taskRepo makes a repository with a committed README on main and, when branch is set, a
// branch whose README differs.
func taskRepo(t *testing.T, name, branch string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	git("init", "-q", "-b", "main")
	writeFile(t, filepath.Join(dir, "README.md"), "# "+name+"\n")
	git("add", "README.md")
	git("commit", "-q", "-m", "first")
	if branch != "" {
		git("checkout", "-q", "-b", branch)
		writeFile(t, filepath.Join(dir, "README.md"), "# "+name+" on "+branch+"\n")
		git("commit", "-q", "-am", "on "+branch)
		git("checkout", "-q", "main")
	}
	return dir
}

// fleetTreeHash hashes every path, mode and content under dir, .git included.
func fleetTreeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v\n", strings.TrimPrefix(p, dir), info.Mode())
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// scriptTasks makes the model edit README.md and add <id>.txt with apply_patch for the task
// whose prompt names it, then answer "done <id>"; the first request of the stalled task gets
// no answer until the client goes away.
func scriptTasks(m *tk.Server, stalled string) { scriptTasksPaced(m, stalled, 0) }

// scriptTasksPaced is scriptTasks with each event of the model's answers delayed by pace
// (a model that takes its time, as real ones do).
func scriptTasksPaced(m *tk.Server, stalled string, pace time.Duration) {
	var stalledOnce atomic.Bool
	m.SetDefault(tk.Replying(func(r tk.Request) tk.Response {
		id := ""
		for _, text := range r.MessageTexts("user") {
			if _, rest, ok := strings.Cut(text, "FLEET-TASK="); ok {
				id = strings.Fields(rest)[0]
			}
		}
		if id == "" {
			return tk.Status(400)
		}
		call := "call_" + id
		if _, answered := r.ToolOutput(call); answered {
			return paced(tk.SSE(tk.Created(), tk.AssistantMessage("msg_"+id, "done "+id), tk.Completed(tk.Usage{Input: 30, Output: 5})), pace)
		}
		if id == stalled && stalledOnce.CompareAndSwap(false, true) {
			return tk.Stall(1, tk.Created())
		}
		patch := "*** Begin Patch\n*** Update File: README.md\n@@\n+changed by " + id + "\n*** Add File: " + id + ".txt\n+new file of " + id + "\n*** End Patch"
		return paced(tk.SSE(tk.Created(), tk.CustomToolCall(call, "apply_patch", patch), tk.Completed(tk.Usage{Input: 20, Output: 7})), pace)
	}))
}

func paced(r tk.Response, pace time.Duration) tk.Response {
	r.EventDelay = tk.Duration(pace)
	return r
}

type fleetStatus struct {
	Counts map[string]int `json:"counts"`
	Tasks  []struct {
		ID         string `json:"id"`
		State      string `json:"state"`
		JobID      string `json:"job_id"`
		Submission int    `json:"submission"`
	} `json:"tasks"`
}

func (w *fleetWorld) status(run string) fleetStatus {
	w.t.Helper()
	res := w.run("", append([]string{"fleet", "status", run, "--out", w.Out, "--json"}, w.Flags...)...)
	if res.Code != 0 {
		w.t.Fatalf("fleet status: %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	var st fleetStatus
	if err := json.Unmarshal([]byte(res.Stdout), &st); err != nil {
		w.t.Fatalf("fleet status --json: %v\n%s", err, res.Stdout)
	}
	return st
}

// awaitStates polls fleet status until want(states by id) holds.
func (w *fleetWorld) awaitStates(run string, what string, want func(map[string]string) bool) fleetStatus {
	w.t.Helper()
	var st fleetStatus
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		st = w.status(run)
		states := map[string]string{}
		for _, task := range st.Tasks {
			states[task.ID] = task.State
		}
		if want(states) {
			return st
		}
	}
	logs, _ := exec.Command("sh", "-c", "cat "+filepath.Join(w.Out, run, ".fleet", "logs")+"/*").CombinedOutput()
	w.t.Fatalf("fleet status never showed %s; last: %+v\nelement logs:\n%s", what, st, logs)
	return st
}

// TestFleetSlurm is issue 36's acceptance: 4 tasks on 4 local repositories through one Slurm
// array on a real one-node cluster; each diff holds its change, the sources are untouched; a
// cancelled task is retried alone; the API key is nowhere in the output or the jobs.
func TestFleetSlurm(t *testing.T) {
	w := newFleetWorld(t)
	ids := []string{"alpha", "beta", "gamma", "delta"}
	repos := map[string]string{}
	before := map[string]string{}
	var tasks strings.Builder
	for _, id := range ids {
		ref := ""
		if id == "delta" {
			ref = "feature"
		}
		repos[id] = taskRepo(t, "repo-"+id, ref)
		before[id] = fleetTreeHash(t, repos[id])
		line, _ := json.Marshal(map[string]any{"id": id, "repo": repos[id], "ref": ref,
			"prompt": "Edit the README. FLEET-TASK=" + id + " please"})
		tasks.Write(append(line, '\n'))
	}
	tasksFile := filepath.Join(t.TempDir(), "tasks.jsonl")
	writeFile(t, tasksFile, tasks.String())
	scriptTasks(w.Model, "gamma")

	res := w.run("", "fleet", "run", "--engine", "slurm", "--tasks", tasksFile, "--out", w.Out, "--name", "e2e", "--parallel", "4")
	if res.Code != 0 {
		t.Fatalf("fleet run: %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	run := strings.TrimSpace(res.Stdout)
	t.Logf("run %s: %s", run, res.Stderr)

	w.awaitStates(run, "3 succeeded and gamma running", func(s map[string]string) bool {
		return s["alpha"] == "succeeded" && s["beta"] == "succeeded" && s["delta"] == "succeeded" && s["gamma"] == "running"
	})
	first := w.status(run)
	if jobs := jobIDs(first); len(jobs) != 1 {
		t.Fatalf("the 4 tasks ran as %d jobs, want one array: %v", len(jobs), jobs)
	}
	awaitModelSaw(t, w.Model, "gamma") // cancelled while its model stalls, not before it asked
	if res := w.run("", "fleet", "cancel", run, "--out", w.Out, "--task", "gamma"); res.Code != 0 {
		t.Fatalf("fleet cancel: %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	w.awaitStates(run, "gamma cancelled", func(s map[string]string) bool { return s["gamma"] == "cancelled" })
	// The element itself recorded it: it stopped the agent on Slurm's SIGTERM.
	var cancelled struct {
		State    string `json:"state"`
		ExitCode *int   `json:"exit_code"`
	}
	for deadline := time.Now().Add(time.Minute); cancelled.State != "cancelled" && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		_ = json.Unmarshal([]byte(readFile(t, filepath.Join(w.Out, run, "gamma", "status.json"))), &cancelled)
	}
	if cancelled.State != "cancelled" || cancelled.ExitCode == nil || *cancelled.ExitCode != 143 {
		t.Fatalf("gamma's status.json after the cancel: %+v", cancelled)
	}

	res = w.run("", "fleet", "retry", run, "--out", w.Out)
	if res.Code != 0 || !strings.Contains(res.Stdout, "retrying gamma as job") || strings.Contains(res.Stdout, "alpha") {
		t.Fatalf("fleet retry should resubmit gamma alone: %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	var sub struct{ Tasks []int }
	data, err := os.ReadFile(filepath.Join(w.Out, run, ".fleet", "submissions", "2.json"))
	if err != nil || json.Unmarshal(data, &sub) != nil || len(sub.Tasks) != 1 || sub.Tasks[0] != 2 {
		t.Fatalf("the retry's submission should hold task 2 (gamma) alone: %s %v", data, err)
	}
	final := w.awaitStates(run, "4 succeeded", func(s map[string]string) bool {
		for _, id := range ids {
			if s[id] != "succeeded" {
				return false
			}
		}
		return true
	})
	if final.Counts["succeeded"] != 4 {
		t.Fatalf("counts: %v", final.Counts)
	}
	res = w.run("", "fleet", "status", run, "--out", w.Out)
	if !strings.Contains(res.Stdout, ": 4 succeeded") {
		t.Fatalf("fleet status should say 4 succeeded:\n%s%s", res.Stdout, res.Stderr)
	}

	for _, id := range ids {
		dir := filepath.Join(w.Out, run, id)
		diff := readFile(t, filepath.Join(dir, "diff.patch"))
		if !strings.Contains(diff, "+changed by "+id) || !strings.Contains(diff, "+new file of "+id) {
			t.Errorf("%s: diff.patch lacks its change:\n%s", id, diff)
		}
		for _, other := range ids {
			if other != id && strings.Contains(diff, "changed by "+other) {
				t.Errorf("%s: diff.patch holds %s's change", id, other)
			}
		}
		if id == "delta" && !strings.Contains(diff, "# repo-delta on feature") {
			t.Errorf("delta ran on main, not its ref feature:\n%s", diff)
		}
		if got := strings.TrimSpace(readFile(t, filepath.Join(dir, "final.txt"))); got != "done "+id {
			t.Errorf("%s: final.txt = %q", id, got)
		}
		for _, f := range []string{"events.jsonl", "rollout.jsonl"} {
			if info, err := os.Stat(filepath.Join(dir, f)); err != nil || info.Size() == 0 {
				t.Errorf("%s: %s missing or empty: %v", id, f, err)
			}
		}
		var st struct {
			ID       string `json:"id"`
			State    string `json:"state"`
			ExitCode *int   `json:"exit_code"`
			JobID    string `json:"job_id"`
			Usage    *struct {
				InputTokens int64 `json:"input_tokens"`
			} `json:"usage"`
			Started  time.Time  `json:"started"`
			Finished *time.Time `json:"finished"`
		}
		if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "status.json"))), &st); err != nil {
			t.Fatal(err)
		}
		if st.ID != id || st.State != "succeeded" || st.ExitCode == nil || *st.ExitCode != 0 || st.JobID == "" ||
			st.Usage == nil || st.Usage.InputTokens != 50 || st.Started.IsZero() || st.Finished == nil {
			t.Errorf("%s: status.json = %+v", id, st)
		}
		if after := fleetTreeHash(t, repos[id]); after != before[id] {
			t.Errorf("%s: the source repository changed", id)
		}
	}

	res = w.run("", "fleet", "collect", run, "--out", w.Out)
	if res.Code != 0 || strings.Count(res.Stdout, "succeeded") != 4 {
		t.Fatalf("fleet collect: %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	t.Logf("fleet collect:\n%s", res.Stdout)
	summary := strings.Split(strings.TrimSpace(readFile(t, filepath.Join(w.Out, run, "summary.jsonl"))), "\n")
	if len(summary) != 4 || !strings.Contains(summary[0], `"diff_files":2`) {
		t.Errorf("summary.jsonl:\n%s", strings.Join(summary, "\n"))
	}

	// The key reached the agents (the model saw it) and nothing else.
	if got := w.Model.Requests()[0].Header.Get("Authorization"); got != "Bearer "+w.Key {
		t.Fatalf("the tasks did not use the key from the environment: %q", got)
	}
	err = filepath.WalkDir(w.Out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		if strings.Contains(readFile(t, p), w.Key) {
			t.Errorf("the API key is in %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	w.checkJobsHoldNo(run, "fleet", w.Key)
}

// checkJobsHoldNo checks that the run's jobs, as scontrol shows them and their batch scripts,
// hold none of secrets, and that each batch script names want.
func (w *fleetWorld) checkJobsHoldNo(run, want string, secrets ...string) {
	t := w.t
	t.Helper()
	for _, job := range jobIDs(w.status(run)) {
		for _, args := range [][]string{{"show", "job", "-dd", job}, {"write", "batch_script", job, "-"}} {
			cmd := exec.Command("scontrol", args...)
			cmd.Env = append(os.Environ(), w.Cluster.Env()...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("scontrol %v: %v\n%s", args, err, out)
			}
			for _, secret := range secrets {
				if strings.Contains(string(out), secret) {
					t.Errorf("a secret is in scontrol %v:\n%s", args, out)
				}
			}
			if !strings.Contains(string(out), want) {
				t.Errorf("scontrol %v does not show %s:\n%s", args, want, out)
			}
		}
	}
}

func jobIDs(st fleetStatus) []string {
	seen := map[string]bool{}
	var out []string
	for _, task := range st.Tasks {
		job, _, _ := strings.Cut(task.JobID, "_")
		if !seen[job] {
			seen[job] = true
			out = append(out, job)
		}
	}
	return out
}
