package fleet

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func newTestRun(t *testing.T, ids ...string) *Run {
	t.Helper()
	r := &Run{ID: "r-1", Name: "r", Engine: "test", Binary: "/bin/gocodex"}
	for _, id := range ids {
		r.Tasks = append(r.Tasks, Task{ID: id, Repo: "/repo", Prompt: "p"})
	}
	if err := Create(t.TempDir(), r); err != nil {
		t.Fatal(err)
	}
	return r
}

func finalStatus(t *testing.T, r *Run, i, sub int, state State) {
	t.Helper()
	now := time.Now()
	code := 0
	if err := r.WriteStatus(i, &TaskStatus{ID: r.Tasks[i].ID, State: state, Submission: sub, ExitCode: &code, Finished: &now}); err != nil {
		t.Fatal(err)
	}
}

// TestRetryMapsElementsToTasks: a retry's array holds only the tasks that did not succeed,
// element e of it runs the e-th of them, and the retry's states win over the first run's.
func TestRetryMapsElementsToTasks(t *testing.T) {
	r := newTestRun(t, "a", "b", "c", "d")
	first, err := r.NewSubmission([]int{0, 1, 2, 3}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	finalStatus(t, r, 0, 1, Succeeded)
	finalStatus(t, r, 2, 1, Cancelled)
	finalStatus(t, r, 3, 1, Succeeded)
	// b's element never started and the engine says it failed (a node lost).
	views, err := Merge(r, []*Submission{first}, ElementStates{1: {1: Failed}})
	if err != nil {
		t.Fatal(err)
	}
	if got := CountLine(views); got != "2 succeeded, 1 failed, 1 cancelled" {
		t.Fatalf("counts: %s", got)
	}
	retry, err := ToRetry(views)
	if err != nil || !slices.Equal(retry, []int{1, 2}) {
		t.Fatalf("retry %v %v, want tasks 1 and 2", retry, err)
	}
	second, err := r.NewSubmission(retry, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if second.Seq != 2 {
		t.Fatalf("seq %d", second.Seq)
	}
	if i, _ := second.TaskOfElement(1); i != 2 {
		t.Fatalf("element 1 of the retry runs task %d, want 2 (c)", i)
	}
	if _, err := second.TaskOfElement(2); err == nil {
		t.Fatal("an element outside the array should be an error")
	}
	// c's old cancelled status stays until the retry's element writes its own: the engine's
	// word on the new element counts.
	subs, err := r.Submissions()
	if err != nil {
		t.Fatal(err)
	}
	views, err = Merge(r, subs, ElementStates{2: {0: Running, 1: Pending}})
	if err != nil {
		t.Fatal(err)
	}
	if views[1].State != Running || views[2].State != Pending || views[2].Submission != 2 {
		t.Fatalf("views: %+v", views)
	}
	if _, err := ToRetry(views); err == nil || !strings.Contains(err.Error(), `task "b" is still running`) {
		t.Fatalf("retry while running: %v", err)
	}
	finalStatus(t, r, 1, 2, Succeeded)
	finalStatus(t, r, 2, 2, Succeeded)
	views, err = Merge(r, subs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := CountLine(views); got != "4 succeeded" {
		t.Fatalf("counts: %s", got)
	}
	if retry, _ := ToRetry(views); len(retry) != 0 {
		t.Fatalf("nothing to retry, got %v", retry)
	}
}

// TestMergeUnknown: an element the engine forgot that left no final status is unknown, and
// a running status the engine no longer knows stays running (the node may answer later).
func TestMergeUnknown(t *testing.T) {
	r := newTestRun(t, "a", "b")
	s, err := r.NewSubmission([]int{0, 1}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WriteStatus(1, &TaskStatus{ID: "b", State: Running, Submission: 1}); err != nil {
		t.Fatal(err)
	}
	views, err := Merge(r, []*Submission{s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if views[0].State != Unknown || views[1].State != Running {
		t.Fatalf("views: %+v", views)
	}
}

func TestLoadRefusesPaths(t *testing.T) {
	for _, id := range []string{"", "..", "a/b", `a\b`} {
		if _, err := Load(t.TempDir(), id); err == nil {
			t.Errorf("Load(%q) should fail", id)
		}
	}
}

// TestSuperseded: an element whose task was resubmitted (a cancelled element wrapping up
// after the retry started) sees the later submission's status and leaves the folder alone.
func TestSuperseded(t *testing.T) {
	r := newTestRun(t, "a")
	if r.superseded(0, 1) {
		t.Fatal("no status yet: not superseded")
	}
	if err := r.WriteStatus(0, &TaskStatus{ID: "a", State: Running, Submission: 2}); err != nil {
		t.Fatal(err)
	}
	if !r.superseded(0, 1) || r.superseded(0, 2) {
		t.Fatal("submission 1 is superseded by 2's status, 2 is not")
	}
}
