package fleet

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// State is a task's state.
type State string

const (
	Pending   State = "pending"
	Running   State = "running"
	Succeeded State = "succeeded"
	Failed    State = "failed"
	Cancelled State = "cancelled"
	// Unknown: the engine no longer knows the element and it left no final status (a node
	// lost, a job purged before it started).
	Unknown State = "unknown"
)

// Final is true for a state a task does not leave by itself.
func (s State) Final() bool { return s == Succeeded || s == Failed || s == Cancelled }

// Usage is the tokens a task's turns used (the sum of exec's turn.completed usage).
type Usage struct {
	InputTokens       int64 `json:"input_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
}

// TaskStatus is DIR/<run-id>/<task-id>/status.json, written by the task's element: "running"
// when it starts, its final state when it ends.
type TaskStatus struct {
	ID         string     `json:"id"`
	State      State      `json:"state"`
	ExitCode   *int       `json:"exit_code"`
	Usage      *Usage     `json:"usage"`
	JobID      string     `json:"job_id"`
	Submission int        `json:"submission"`
	Started    time.Time  `json:"started"`
	Finished   *time.Time `json:"finished"`
	// Commit is the commit the task's clone started from (diff.patch is against it).
	Commit string `json:"commit,omitempty"`
	// Error says why a task failed before or around the agent (a clone that failed...).
	Error string `json:"error,omitempty"`
}

// StatusFile is the name of a task's status file.
const StatusFile = "status.json"

// ReadStatus reads task i's status file; nil when the task has none yet.
func (r *Run) ReadStatus(i int) (*TaskStatus, error) {
	var st TaskStatus
	err := readJSON(r.store, r.taskKey(i, StatusFile), &st)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &st, nil
}

// WriteStatus writes task i's status file.
func (r *Run) WriteStatus(i int, st *TaskStatus) error {
	return writeJSON(r.store, r.taskKey(i, StatusFile), st)
}

// TaskView is a task's state merged from its status file and the engine.
type TaskView struct {
	Index      int         `json:"index"`
	ID         string      `json:"id"`
	State      State       `json:"state"`
	JobID      string      `json:"job_id"`
	Submission int         `json:"submission"`
	Status     *TaskStatus `json:"status,omitempty"`
}

// ElementStates are the states an engine still reports, by submission seq then element.
type ElementStates map[int]map[int]State

// Merge gives each task its state: the final state its element wrote for its latest
// submission; otherwise what the engine says of that element; otherwise the status file's
// (running) state from that submission, or Unknown when there is none.
func Merge(r *Run, subs []*Submission, engine ElementStates) ([]TaskView, error) {
	latest := make([]*Submission, len(r.Tasks))
	for _, s := range subs {
		for _, i := range s.Tasks {
			if i < 0 || i >= len(r.Tasks) {
				return nil, fmt.Errorf("submission %d names task %d of %d", s.Seq, i, len(r.Tasks))
			}
			latest[i] = s
		}
	}
	views := make([]TaskView, len(r.Tasks))
	for i, t := range r.Tasks {
		st, err := r.ReadStatus(i)
		if err != nil {
			return nil, err
		}
		v := TaskView{Index: i, ID: t.ID, State: Unknown, Status: st}
		s := latest[i]
		if s == nil {
			views[i] = v
			continue
		}
		v.Submission, v.JobID = s.Seq, s.JobID
		current := st != nil && st.Submission == s.Seq
		engineState, known := engine[s.Seq][s.ElementOfTask(i)]
		switch {
		case current && st.State.Final():
			v.State, v.JobID = st.State, st.JobID
		case known:
			v.State = engineState
		case current:
			v.State = st.State
		}
		views[i] = v
	}
	return views, nil
}

// Counts tallies the states of views.
func Counts(views []TaskView) map[State]int {
	c := map[State]int{}
	for _, v := range views {
		c[v.State]++
	}
	return c
}

// ToRetry are the tasks a retry resubmits: every task that did not succeed. A task still
// pending or running is an error: it may yet succeed (cancel it first).
func ToRetry(views []TaskView) ([]int, error) {
	var out []int
	for _, v := range views {
		switch v.State {
		case Succeeded:
		case Pending, Running:
			return nil, fmt.Errorf("task %q is still %s: wait for it, or cancel it first", v.ID, v.State)
		default:
			out = append(out, v.Index)
		}
	}
	return out, nil
}
