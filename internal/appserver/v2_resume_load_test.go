package appserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// codexForkOfFork is Codex 0.169's `exec fork` of a thread ("alpha"), continued ("bravo",
// "charlie"): the fork's rollout points at its base's history instead of copying it.
const codexForkOfFork = "../../e2e/testdata/codex_fork_of_fork"

// TestResumeOfCodexForkIsTheFullLoad: thread/resume goes through the thread service's one
// load, which follows a fork's history base: the turns it answers with and the history the
// next turn sends hold the base's turn, in order, once each.
func TestResumeOfCodexForkIsTheFullLoad(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	var forkID string
	err := filepath.WalkDir(codexForkOfFork, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(codexForkOfFork, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if head, _, _ := strings.Cut(string(data), "\n"); strings.Contains(head, `"history_base"`) {
			id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
			forkID = id[len(id)-36:]
		}
		dst := filepath.Join(w.Home, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o600)
	})
	if err != nil || forkID == "" {
		t.Fatalf("recording: fork %q: %v", forkID, err)
	}
	cl := w.connect(w.Srv)
	var resumed struct {
		Thread struct {
			Turns json.RawMessage `json:"turns"`
		} `json:"thread"`
	}
	cl.call("thread/resume", map[string]any{"threadId": forkID, "cwd": w.Work}, &resumed)
	inOrderOnce(t, "thread/resume's turns", string(resumed.Thread.Turns), `"alpha"`, `"bravo"`, `"charlie"`)

	w.Model.Enqueue(answer("delta answer"))
	cl.turn(forkID, "delta")
	cl.until("turn/completed")
	reqs := w.Model.Requests()
	inOrderOnce(t, "the next turn's request", string(reqs[len(reqs)-1].Body), `"alpha"`, `"bravo"`, `"charlie"`, `"delta"`)
}

// inOrderOnce fails unless each of subs occurs in s once, in the order given.
func inOrderOnce(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	at := -1
	for _, sub := range subs {
		if n := strings.Count(s, sub); n != 1 {
			t.Errorf("%s holds %s %d times, want once: %s", what, sub, n, s)
			return
		}
		i := strings.Index(s, sub)
		if i < at {
			t.Errorf("%s holds %s out of order: %s", what, sub, s)
			return
		}
		at = i
	}
}
