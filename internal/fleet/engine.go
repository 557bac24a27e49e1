package fleet

import (
	"context"
	"strconv"
	"strings"
)

// Engine is a batch system that runs arrays of elements: it knows nothing of tasks.
type Engine interface {
	// Name is the engine's name in errors and in run.json.
	Name() string
	// Check fails with an error naming the engine when it cannot take a submission.
	Check(ctx context.Context) error
	// Submit starts one array of len(s.Tasks) elements, at most r.Parallel at once; element e
	// runs ElementCommand. It returns the engine's job id.
	Submit(ctx context.Context, r *Run, s *Submission) (jobID string, err error)
	// States are the states of the job's elements the engine still knows, by element.
	States(ctx context.Context, jobID string) (map[int]State, error)
	// Cancel stops the job's elements (all of them when elements is nil).
	Cancel(ctx context.Context, jobID string, elements []int) error
}

// ElementCommand is the command element `element` of submission s runs: the hidden
// `gocodex fleet run-task`. element and jobID are as the engine spells them in the element's
// command line (a shell variable, a Kubernetes $(VAR) reference).
func ElementCommand(r *Run, s *Submission, element, jobID string) []string {
	return []string{r.Binary, "fleet", "run-task",
		"--run-dir", r.Dir(),
		"--submission", strconv.Itoa(s.Seq),
		"--element", element,
		"--job-id", jobID,
	}
}

// ParseIndexList reads an engine's list of indexes: "3", "0-3", "1,3-5" (Slurm's array
// ranges, a Job's completedIndexes), with an optional "%N" throttle after it (Slurm's).
func ParseIndexList(s string) ([]int, error) {
	s, _, _ = strings.Cut(s, "%")
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, err
			}
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out, nil
}

// CancelledExitCode is an element's exit when the engine stopped it (128+SIGTERM).
const CancelledExitCode = 143
