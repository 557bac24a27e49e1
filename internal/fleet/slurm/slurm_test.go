package slurm

import (
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/fleet"
)

func TestParseShowJob(t *testing.T) {
	out := "JobId=12 ArrayJobId=11 ArrayTaskId=1 JobName=x JobState=RUNNING Reason=None\n" +
		"JobId=13 ArrayJobId=11 ArrayTaskId=0 JobName=x JobState=COMPLETED Reason=None\n" +
		"JobId=14 ArrayJobId=11 ArrayTaskId=3 JobName=x JobState=CANCELLED Reason=None\n" +
		"JobId=11 ArrayJobId=11 ArrayTaskId=4-6,8%2 JobName=x JobState=PENDING Reason=JobArrayTaskLimit\n" +
		"JobId=15 ArrayJobId=11 ArrayTaskId=2 JobName=x JobState=OUT_OF_MEMORY Reason=None\n"
	got, err := ParseShowJob(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]fleet.State{0: fleet.Succeeded, 1: fleet.Running, 2: fleet.Failed, 3: fleet.Cancelled,
		4: fleet.Pending, 5: fleet.Pending, 6: fleet.Pending, 8: fleet.Pending}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("element %d: %s, want %s", k, got[k], v)
		}
	}
}

// TestScriptHoldsNoSecretAndQuotes: the batch script is the element's command alone, its
// paths quoted for the shell, the engine's variables left for the shell to expand.
func TestScriptHoldsNoSecretAndQuotes(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	r := &fleet.Run{ID: "r-1", Binary: "/opt/it's/gocodex", Parallel: 3, Tasks: make([]fleet.Task, 5)}
	if err := r.SetDir("/shared/out"); err != nil {
		t.Fatal(err)
	}
	s := &fleet.Submission{Seq: 2, Tasks: []int{1, 4}}
	script := Script(r, s)
	want := `exec '/opt/it'\''s/gocodex' 'fleet' 'run-task' '--run-dir' '/shared/out/r-1' '--submission' '2' '--element' "$SLURM_ARRAY_TASK_ID" '--job-id' "${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}"`
	if !strings.Contains(script, want) || strings.Contains(script, "sk-secret") {
		t.Fatalf("script:\n%s", script)
	}
	args := strings.Join(New(Options{Partition: "gpu"}).SbatchArgs(r, s), " ")
	for _, w := range []string{"--array=0-1%3", "--export=ALL", "--partition=gpu", "--output=/shared/out/r-1/.fleet/logs/%A_%a.out"} {
		if !strings.Contains(args, w) {
			t.Errorf("sbatch args lack %s: %s", w, args)
		}
	}
}

// TestBucketRunArgs: a run in a bucket names its s3:// folder to the elements (the endpoint
// and keys stay in the environment) and leaves Slurm its default log file (there is no
// shared results folder for it).
func TestBucketRunArgs(t *testing.T) {
	t.Setenv("AWS_SECRET_ACCESS_KEY", "s3-secret")
	r := &fleet.Run{ID: "r-1", Binary: "/bin/gocodex", Tasks: make([]fleet.Task, 2)}
	if err := r.SetDir("s3://results/fleet"); err != nil {
		t.Fatal(err)
	}
	s := &fleet.Submission{Seq: 1, Tasks: []int{0, 1}}
	script := Script(r, s)
	if !strings.Contains(script, `'--run-dir' 's3://results/fleet/r-1'`) || strings.Contains(script, "s3-secret") {
		t.Fatalf("script:\n%s", script)
	}
	args := strings.Join(New(Options{}).SbatchArgs(r, s), " ")
	if strings.Contains(args, "--output") || strings.Contains(args, "s3-secret") {
		t.Fatalf("sbatch args: %s", args)
	}
}
