package fleet

import (
	"context"
	"fmt"
	"time"
)

// Start checks the output store and the engine, writes the run's folder under out and
// submits every task as one array. On any error nothing is left submitted and the run's
// folder is removed.
func Start(ctx context.Context, eng Engine, out string, r *Run) error {
	st, err := OpenStore(out)
	if err != nil {
		return err
	}
	if err := st.Check(ctx); err != nil {
		return err
	}
	if err := eng.Check(ctx); err != nil {
		return err
	}
	if err := Create(out, r); err != nil {
		return err
	}
	all := make([]int, len(r.Tasks))
	for i := range all {
		all[i] = i
	}
	if _, err := submit(ctx, eng, r, all); err != nil {
		r.store.RemoveAll(r.ID)
		return err
	}
	return nil
}

// submit records and submits one array of tasks.
func submit(ctx context.Context, eng Engine, r *Run, tasks []int) (*Submission, error) {
	s, err := r.NewSubmission(tasks, time.Now())
	if err != nil {
		return nil, err
	}
	jobID, err := eng.Submit(ctx, r, s)
	if err != nil {
		r.store.Remove(r.submissionKey(s.Seq))
		return nil, fmt.Errorf("%s: submit: %w", eng.Name(), err)
	}
	s.JobID = jobID
	return s, r.SaveSubmission(s)
}

// Status merges the engine's view of every submission with the status files.
func Status(ctx context.Context, eng Engine, r *Run) ([]TaskView, error) {
	subs, err := r.Submissions()
	if err != nil {
		return nil, err
	}
	states := ElementStates{}
	for _, s := range subs {
		if s.JobID == "" || allFinal(r, s) {
			continue
		}
		st, err := eng.States(ctx, s.JobID)
		if err != nil {
			return nil, fmt.Errorf("%s: job %s: %w", eng.Name(), s.JobID, err)
		}
		states[s.Seq] = st
	}
	return Merge(r, subs, states)
}

// allFinal is true when every task of s wrote a final status for s: the engine need not be
// asked (after its accounting forgot the job, it could not answer).
func allFinal(r *Run, s *Submission) bool {
	for _, i := range s.Tasks {
		st, err := r.ReadStatus(i)
		if err != nil || st == nil || st.Submission != s.Seq || !st.State.Final() {
			return false
		}
	}
	return true
}

// Retry submits the tasks that did not succeed as a new array; their results land in the
// same run folder. It returns the new submission (nil when every task succeeded).
func Retry(ctx context.Context, eng Engine, r *Run) (*Submission, error) {
	if err := eng.Check(ctx); err != nil {
		return nil, err
	}
	views, err := Status(ctx, eng, r)
	if err != nil {
		return nil, err
	}
	tasks, err := ToRetry(views)
	if err != nil || len(tasks) == 0 {
		return nil, err
	}
	return submit(ctx, eng, r, tasks)
}

// Cancel stops the run's unfinished elements, or only those of the given task ids.
func Cancel(ctx context.Context, eng Engine, r *Run, taskIDs []string) error {
	views, err := Status(ctx, eng, r)
	if err != nil {
		return err
	}
	want := map[int]bool{}
	for _, id := range taskIDs {
		i, err := r.TaskIndex(id)
		if err != nil {
			return err
		}
		want[i] = true
	}
	subs, err := r.Submissions()
	if err != nil {
		return err
	}
	bySeq := map[int]*Submission{}
	for _, s := range subs {
		bySeq[s.Seq] = s
	}
	elements := map[int][]int{}
	for _, v := range views {
		if v.State.Final() || v.Submission == 0 || len(want) > 0 && !want[v.Index] {
			continue
		}
		s := bySeq[v.Submission]
		elements[s.Seq] = append(elements[s.Seq], s.ElementOfTask(v.Index))
	}
	for seq, els := range elements {
		s := bySeq[seq]
		if len(want) == 0 && len(els) == len(s.Tasks) {
			els = nil // the whole job
		}
		if err := eng.Cancel(ctx, s.JobID, els); err != nil {
			return fmt.Errorf("%s: cancel job %s: %w", eng.Name(), s.JobID, err)
		}
	}
	return nil
}
