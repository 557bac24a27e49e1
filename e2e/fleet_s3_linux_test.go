package e2e

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// TestFleetSlurmS3 is issue 36's S3 output: the Slurm flow of TestFleetSlurm with --out
// s3://results/nightly on a scripted S3 server (Signature V4 checked on every request), the
// endpoint given by --s3-endpoint and the keys by the standard AWS variables. Every task's
// files are objects with the right contents, status/cancel/retry/collect read the bucket,
// and neither the S3 secret key nor the API key is in the bucket or the jobs. Before that,
// a malformed URL and an unreachable endpoint fail naming them, with nothing submitted.
func TestFleetSlurmS3(t *testing.T) {
	w := newFleetWorld(t)
	s3 := tk.StartS3(t, "results")
	for _, kv := range s3.Env() {
		if !strings.HasPrefix(kv, "AWS_ENDPOINT_URL") { // the endpoint comes by --s3-endpoint
			w.ExtraEnv = append(w.ExtraEnv, kv)
		}
	}
	w.Out = "s3://results/nightly"
	endpoint := []string{"--s3-endpoint", s3.URL()}
	w.Flags = endpoint
	fleet := func(args ...string) result {
		t.Helper()
		return w.run("", append(append([]string{"fleet"}, args...), endpoint...)...)
	}

	ids := []string{"alpha", "beta", "gamma"}
	var tasks strings.Builder
	for _, id := range ids {
		line, _ := json.Marshal(map[string]any{"id": id, "repo": taskRepo(t, "repo-"+id, ""),
			"prompt": "Edit the README. FLEET-TASK=" + id + " please"})
		tasks.Write(append(line, '\n'))
	}
	tasksFile := filepath.Join(t.TempDir(), "tasks.jsonl")
	writeFile(t, tasksFile, tasks.String())

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"malformed URL", []string{"--out", "s3://Results_Bucket/x"}, []string{"--out s3://Results_Bucket/x", "is not a bucket name"}},
		{"unreachable endpoint", []string{"--out", w.Out, "--s3-endpoint", dead}, []string{"--out s3://results/nightly", "not reachable", dead}},
		{"missing bucket", []string{"--out", "s3://elsewhere"}, []string{"--out s3://elsewhere", "does not exist"}},
	} {
		res := w.run("", append(append([]string{"fleet", "run", "--engine", "slurm", "--tasks", tasksFile}, endpoint...), c.args...)...)
		for _, want := range c.want {
			if res.Code == 0 || !strings.Contains(res.Stderr, want) {
				t.Errorf("%s: the error should say %q: %d\n%s%s", c.name, want, res.Code, res.Stdout, res.Stderr)
			}
		}
	}
	squeue := exec.Command("squeue", "--noheader", "--all")
	squeue.Env = append(os.Environ(), w.Cluster.Env()...)
	if out, err := squeue.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "" {
		t.Fatalf("bad input submitted something (squeue: %v):\n%s", err, out)
	}
	if objs := s3.Objects("results"); len(objs) != 0 {
		t.Fatalf("bad input wrote objects: %v", objs)
	}

	scriptTasks(w.Model, "gamma")
	res := fleet("run", "--engine", "slurm", "--tasks", tasksFile, "--out", w.Out, "--name", "s3")
	if res.Code != 0 {
		t.Fatalf("fleet run: %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	run := strings.TrimSpace(res.Stdout)
	if !strings.Contains(res.Stderr, "results in s3://results/nightly/"+run) {
		t.Errorf("fleet run should name the bucket's folder: %s", res.Stderr)
	}
	w.awaitStates(run, "2 succeeded and gamma running", func(s map[string]string) bool {
		return s["alpha"] == "succeeded" && s["beta"] == "succeeded" && s["gamma"] == "running"
	})
	awaitModelSaw(t, w.Model, "gamma") // cancelled while its model stalls, not before it asked
	if res := fleet("cancel", run, "--out", w.Out, "--task", "gamma"); res.Code != 0 {
		t.Fatalf("fleet cancel: %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	w.awaitStates(run, "gamma cancelled", func(s map[string]string) bool { return s["gamma"] == "cancelled" })
	var retried string
	for range 60 { // the element records its cancellation in the bucket as it stops
		if res = fleet("retry", run, "--out", w.Out); res.Code == 0 {
			retried = res.Stdout
			break
		}
		if !strings.Contains(res.Stderr, "still running") {
			t.Fatalf("fleet retry: %d\n%s%s", res.Code, res.Stdout, res.Stderr)
		}
	}
	if !strings.Contains(retried, "retrying gamma as job") {
		t.Fatalf("fleet retry should resubmit gamma alone: %s%s", res.Stdout, res.Stderr)
	}
	w.awaitStates(run, "3 succeeded", func(s map[string]string) bool {
		return s["alpha"] == "succeeded" && s["beta"] == "succeeded" && s["gamma"] == "succeeded"
	})

	objs := s3.Objects("results")
	obj := func(id, name string) string { return string(objs["nightly/"+run+"/"+id+"/"+name]) }
	for _, id := range ids {
		if diff := obj(id, "diff.patch"); !strings.Contains(diff, "+changed by "+id) || !strings.Contains(diff, "+new file of "+id) {
			t.Errorf("%s: diff.patch object lacks its change:\n%s", id, diff)
		}
		if got := strings.TrimSpace(obj(id, "final.txt")); got != "done "+id {
			t.Errorf("%s: final.txt object = %q", id, got)
		}
		for _, f := range []string{"events.jsonl", "rollout.jsonl"} {
			if obj(id, f) == "" {
				t.Errorf("%s: %s object missing or empty", id, f)
			}
		}
		var st struct {
			ID, State, JobID string
			ExitCode         *int `json:"exit_code"`
			Submission       int
		}
		if err := json.Unmarshal([]byte(obj(id, "status.json")), &st); err != nil || st.ID != id || st.State != "succeeded" ||
			st.ExitCode == nil || *st.ExitCode != 0 || (id == "gamma") != (st.Submission == 2) {
			t.Errorf("%s: status.json object = %+v %v", id, st, err)
		}
	}
	if _, ok := objs["nightly/"+run+"/.fleet/run.json"]; !ok {
		t.Errorf("no run.json object; objects: %v", keys(objs))
	}

	res = fleet("collect", run, "--out", w.Out)
	if res.Code != 0 || strings.Count(res.Stdout, "succeeded") != 3 {
		t.Fatalf("fleet collect: %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	summary := string(s3.Objects("results")["nightly/"+run+"/summary.jsonl"])
	if strings.Count(summary, "\n") != 3 || !strings.Contains(summary, `"diff_files":2`) {
		t.Errorf("summary.jsonl object:\n%s", summary)
	}

	// The keys reached the tasks (the model and the store saw them) and nothing else.
	if got := w.Model.Requests()[0].Header.Get("Authorization"); got != "Bearer "+w.Key {
		t.Fatalf("the tasks did not use the key from the environment: %q", got)
	}
	for k, v := range s3.Objects("results") {
		for _, secret := range []string{s3.SecretKey, w.Key} {
			if strings.Contains(string(v), secret) {
				t.Errorf("a secret is in the object %s", k)
			}
		}
	}
	// The jobs hold neither key (their script names the bucket: TestBucketRunArgs).
	w.checkJobsHoldNo(run, run, s3.SecretKey, s3.AccessKey, w.Key)
}

// awaitModelSaw waits until the model has been asked by task id's agent.
func awaitModelSaw(t *testing.T, m *tk.Server, id string) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		for _, r := range m.Requests() {
			for _, text := range r.MessageTexts("user") {
				if strings.Contains(text, "FLEET-TASK="+id+" ") {
					return
				}
			}
		}
	}
	t.Fatalf("the model was never asked by task %s", id)
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
