package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFleetBadInput: a malformed tasks line, a duplicate id, a repository that does not
// exist and an engine that is not reachable each fail with an error naming the line, the
// task or the engine, exit non-zero, and leave nothing submitted and no run folder.
func TestFleetBadInput(t *testing.T) {
	w := newFleetWorld(t)
	repo := taskRepo(t, "repo", "")
	line := func(id, repo string) string {
		b, _ := json.Marshal(map[string]string{"id": id, "repo": repo, "prompt": "p"})
		return string(b)
	}
	deadConf := filepath.Join(t.TempDir(), "slurm.conf")
	writeFile(t, deadConf, "ClusterName=dead\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort=9\n"+
		"AuthType=auth/munge\nAuthInfo=socket="+filepath.Join(t.TempDir(), "no-munge")+"\nMessageTimeout=2\n"+
		"NodeName=localhost CPUs=1\nPartitionName=p Nodes=localhost Default=YES\n")
	cases := []struct {
		name, tasks string
		env         []string
		want        []string
	}{
		{"malformed line", line("a", repo) + "\n{\"id\": \"b\", \"repo\": \n", nil, []string{"tasks.jsonl:2:", "not a task object"}},
		{"unknown field", line("a", repo) + "\n" + `{"id":"b","repo":"x","prompt":"p","promt":"q"}` + "\n", nil, []string{"tasks.jsonl:2:", `unknown field "promt"`}},
		{"duplicate id", line("a", repo) + "\n\n" + line("a", repo) + "\n", nil, []string{"tasks.jsonl:3:", `duplicate task id "a" (first on line 1)`}},
		{"missing repo", line("a", repo) + "\n" + line("b", filepath.Join(repo, "gone")) + "\n", nil, []string{`task "b"`, "does not exist"}},
		{"not a repository", line("a", t.TempDir()) + "\n", nil, []string{`task "a"`, "is not a git repository"}},
		{"unreachable engine", line("a", repo) + "\n", []string{"SLURM_CONF=" + deadConf}, []string{"engine slurm is not reachable"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tasks := filepath.Join(t.TempDir(), "tasks.jsonl")
			writeFile(t, tasks, c.tasks)
			out := t.TempDir()
			saved := w.ExtraEnv
			w.ExtraEnv = append(append([]string{}, saved...), c.env...)
			res := w.run("", "fleet", "run", "--engine", "slurm", "--tasks", tasks, "--out", out)
			w.ExtraEnv = saved
			if res.Code == 0 {
				t.Fatalf("fleet run succeeded:\n%s%s", res.Stdout, res.Stderr)
			}
			for _, want := range c.want {
				if !strings.Contains(res.Stderr, want) {
					t.Errorf("the error should say %q:\n%s", want, res.Stderr)
				}
			}
			if entries, _ := os.ReadDir(out); len(entries) != 0 {
				t.Errorf("the output folder is not empty: %v", entries)
			}
		})
	}
	squeue := exec.Command("squeue", "--noheader", "--all")
	squeue.Env = append(os.Environ(), w.Cluster.Env()...)
	if out, err := squeue.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "" {
		t.Fatalf("something was submitted (squeue: %v):\n%s", err, out)
	}
	jobs := exec.Command("scontrol", "show", "jobs")
	jobs.Env = squeue.Env
	if out, _ := jobs.CombinedOutput(); !strings.Contains(string(out), "No jobs") {
		t.Fatalf("something was submitted:\n%s", out)
	}
}
