package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// TestFleetSlurmBenchmark (GOCODEX_FLEET_BENCH=1; minutes) measures issue 36's figures on
// this machine's one-node cluster, with a model that paces its events (200 ms each, about
// 1.6 s of model time per task):
//   - 20 tasks through `fleet run` (one array) against the same 20 run one after another
//     with `gocodex exec --json`;
//   - the per-task overhead of the fleet (a clone, the diff, the rollout, the status files)
//     over an sbatch array whose elements run a bare `gocodex exec --json` in place;
//   - the same fleet run with --out s3:// on the scripted S3 server on 127.0.0.1.
func TestFleetSlurmBenchmark(t *testing.T) {
	if os.Getenv("GOCODEX_FLEET_BENCH") != "1" {
		t.Skip("GOCODEX_FLEET_BENCH=1 runs the fleet benchmark")
	}
	const n = 20
	w := newFleetWorld(t)
	scriptTasksPaced(w.Model, "", 200*time.Millisecond)
	makeRepos := func(set string) []string {
		repos := make([]string, n)
		for i := range repos {
			repos[i] = taskRepo(t, fmt.Sprintf("%s-%02d", set, i), "")
		}
		return repos
	}
	prompt := func(i int) string { return fmt.Sprintf("Edit the README. FLEET-TASK=t%02d please", i) }

	// Sequential: one exec after another, each in its own repository.
	seqRepos := makeRepos("seq")
	start := time.Now()
	for i, repo := range seqRepos {
		w.Workdir = repo
		if res := w.run(prompt(i), "exec", "--json", "-"); res.Code != 0 {
			t.Fatalf("exec %d: %d %s", i, res.Code, res.Stderr)
		}
	}
	sequential := time.Since(start)

	// Fleet: one array of n tasks, into out; statusOf reads task i's status.json.
	tasksFile := filepath.Join(t.TempDir(), "tasks.jsonl")
	fleetRun := func(set, out string, statusOf func(run string, i int) []byte) (time.Duration, []float64) {
		var tasks strings.Builder
		for i, repo := range makeRepos(set) {
			line, _ := json.Marshal(map[string]string{"id": fmt.Sprintf("t%02d", i), "repo": repo, "prompt": prompt(i)})
			tasks.Write(append(line, '\n'))
		}
		writeFile(t, tasksFile, tasks.String())
		start := time.Now()
		res := w.run("", "fleet", "run", "--engine", "slurm", "--tasks", tasksFile, "--out", out, "--name", "bench-"+set)
		if res.Code != 0 {
			t.Fatalf("fleet run --out %s: %s", out, res.Stderr)
		}
		run := strings.TrimSpace(res.Stdout)
		var times []float64
		awaitFiles(t, func() bool {
			times = times[:0]
			for i := 0; i < n; i++ {
				var st struct {
					State    string
					Started  time.Time
					Finished *time.Time
				}
				data := statusOf(run, i)
				if json.Unmarshal(data, &st) != nil || st.Finished == nil {
					return false
				}
				if st.State != "succeeded" {
					t.Fatalf("task %d: %s", i, data)
				}
				times = append(times, st.Finished.Sub(st.Started).Seconds())
			}
			return true
		})
		return time.Since(start), times
	}
	fleetWall, fleetTimes := fleetRun("fleet", w.Out, func(run string, i int) []byte {
		data, _ := os.ReadFile(filepath.Join(w.Out, run, fmt.Sprintf("t%02d", i), "status.json"))
		return data
	})

	// Fleet into a bucket: the same, each task uploading its files.
	s3 := tk.StartS3(t, "bench")
	saved := w.ExtraEnv
	w.ExtraEnv = append(append([]string{}, saved...), s3.Env()...)
	s3Wall, s3Times := fleetRun("s3", "s3://bench/runs", func(run string, i int) []byte {
		return s3.Objects("bench")[fmt.Sprintf("runs/%s/t%02d/status.json", run, i)]
	})
	w.ExtraEnv = saved

	// Bare: the same through sbatch directly, each element a plain exec in place.
	bareRepos := makeRepos("bare")
	bareDir := t.TempDir()
	var script strings.Builder
	script.WriteString("#!/bin/sh\ncase $SLURM_ARRAY_TASK_ID in\n")
	for i, repo := range bareRepos {
		writeFile(t, filepath.Join(bareDir, fmt.Sprintf("prompt-%d", i)), prompt(i))
		fmt.Fprintf(&script, "%d) repo=%s;;\n", i, repo)
	}
	fmt.Fprintf(&script, "esac\nd=%s; i=$SLURM_ARRAY_TASK_ID\nstart=$(date +%%s.%%N)\n", bareDir)
	fmt.Fprintf(&script, "%s exec --json -C \"$repo\" - < $d/prompt-$i > $d/events-$i.jsonl\n", binary)
	script.WriteString("echo $start $(date +%s.%N) > $d/time-$i.tmp && mv $d/time-$i.tmp $d/time-$i\n")
	start = time.Now()
	sbatch := exec.Command("sbatch", "--parsable", "--export=ALL", fmt.Sprintf("--array=0-%d", n-1), "--output=/dev/null")
	sbatch.Env = w.environ()
	sbatch.Stdin = strings.NewReader(script.String())
	if out, err := sbatch.CombinedOutput(); err != nil {
		t.Fatalf("sbatch: %v %s", err, out)
	}
	var bareTimes []float64
	awaitFiles(t, func() bool {
		bareTimes = bareTimes[:0]
		for i := 0; i < n; i++ {
			data, err := os.ReadFile(filepath.Join(bareDir, fmt.Sprintf("time-%d", i)))
			if err != nil {
				return false
			}
			f := strings.Fields(string(data))
			a, _ := strconv.ParseFloat(f[0], 64)
			b, _ := strconv.ParseFloat(f[1], 64)
			bareTimes = append(bareTimes, b-a)
		}
		return true
	})
	bareWall := time.Since(start)

	t.Logf("%d tasks, model pacing 200 ms an event, node of %s", n, w.Cluster.Node)
	t.Logf("sequential gocodex exec:  %6.1f s wall", sequential.Seconds())
	t.Logf("fleet run (one array):    %6.1f s wall (%.2fx faster)", fleetWall.Seconds(), sequential.Seconds()/fleetWall.Seconds())
	t.Logf("fleet run into s3://:     %6.1f s wall", s3Wall.Seconds())
	t.Logf("bare sbatch array:        %6.1f s wall", bareWall.Seconds())
	t.Logf("per task: fleet element median %.2f s, bare exec median %.2f s: fleet adds %.2f s a task",
		median(fleetTimes), median(bareTimes), median(fleetTimes)-median(bareTimes))
	t.Logf("per task into s3://: element median %.2f s: fleet adds %.2f s a task", median(s3Times), median(s3Times)-median(bareTimes))
}

func awaitFiles(t *testing.T, done func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if done() {
			return
		}
	}
	t.Fatal("the tasks did not finish in 10 minutes")
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}
