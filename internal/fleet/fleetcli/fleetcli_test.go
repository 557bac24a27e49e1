package fleetcli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/iostreams"
)

func runFleet(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := NewCommand(&iostreams.IOStreams{Out: &out, ErrOut: &errOut}, func(int) error { return nil })
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	err = cmd.Execute()
	return out.String(), errOut.String(), err
}

func tasksFile(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	path := filepath.Join(t.TempDir(), "tasks.jsonl")
	line := `{"id":"a","repo":"` + repo + `","prompt":"p"}` + "\n"
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDryRunSlurm prints the sbatch command and script, with no key, and makes no folder.
func TestDryRunSlurm(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-dry-run-secret")
	out := t.TempDir()
	stdout, _, err := runFleet(t, "run", "--engine", "slurm", "--tasks", tasksFile(t), "--out", out, "--parallel", "3", "--partition", "gpu", "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# sbatch --parsable", "--array=0-0%3", "--partition=gpu", "'fleet' 'run-task'"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("dry run lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "sk-dry-run-secret") {
		t.Fatalf("the key is in the dry run:\n%s", stdout)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Fatalf("a dry run made %v", entries)
	}
}

func TestUsageErrors(t *testing.T) {
	tasks := tasksFile(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--tasks", tasks, "--out", t.TempDir()}, "--engine is required"},
		{[]string{"run", "--engine", "pbs", "--tasks", tasks, "--out", t.TempDir()}, `--engine "pbs"`},
		{[]string{"run", "--engine", "slurm", "--out", t.TempDir()}, "--tasks is required"},
		{[]string{"run", "--engine", "slurm", "--tasks", tasks}, "--out is required"},
		{[]string{"run", "--engine", "slurm", "--tasks", tasks, "--out", "s3://Bucket_1/x"}, `--out s3://Bucket_1/x: "Bucket_1" is not a bucket name`},
		{[]string{"status", "r", "--out", "s3://"}, "--out s3://: \"\" is not a bucket name"},
		{[]string{"run", "--engine", "slurm", "--tasks", tasks, "--out", t.TempDir(), "-c", "novalue"}, "expected key=value"},
		{[]string{"run", "--engine", "slurm", "--tasks", tasks, "--out", t.TempDir(), "--name", "a/b"}, "run name"},
		{[]string{"status", "nope", "--out", t.TempDir()}, "no such run"},
	}
	for _, c := range cases {
		_, _, err := runFleet(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}
