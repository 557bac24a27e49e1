// Package slurm is the fleet's Slurm engine: a run's submission is one job array
// (sbatch --array=0-(n-1)%N), its elements' states come from scontrol (the controller's
// memory: no accounting database needed), a cancel is scancel. The commands find the cluster
// as the user's own do (slurm.conf, SLURM_CONF).
package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	"github.com/gocodex/gocodex/internal/fleet"
)

// Options are the engine's flags.
type Options struct {
	// Partition is sbatch's --partition ("" the cluster's default).
	Partition string
	// TimeLimit is sbatch's --time ("" the partition's default).
	TimeLimit string
}

// Engine submits to the Slurm cluster the commands on PATH talk to.
type Engine struct{ opts Options }

// New returns the engine.
func New(o Options) *Engine { return &Engine{opts: o} }

// FromMap and Map keep the options in run.json.
func FromMap(m map[string]string) Options {
	return Options{Partition: m["partition"], TimeLimit: m["time"]}
}

// Map is the options as run.json keeps them.
func (o Options) Map() map[string]string {
	m := map[string]string{}
	if o.Partition != "" {
		m["partition"] = o.Partition
	}
	if o.TimeLimit != "" {
		m["time"] = o.TimeLimit
	}
	return m
}

// Name is "slurm".
func (*Engine) Name() string { return "slurm" }

// Check asks the controller whether it is up.
func (e *Engine) Check(ctx context.Context) error {
	for _, cmd := range []string{"sbatch", "scontrol", "scancel"} {
		if _, err := exec.LookPath(cmd); err != nil {
			return fmt.Errorf("engine slurm is not reachable: %s is not on PATH (run on a Slurm login node, or install the Slurm client)", cmd)
		}
	}
	out, err := run(ctx, nil, "scontrol", "ping")
	if err != nil || !strings.Contains(out, " is UP") {
		return fmt.Errorf("engine slurm is not reachable: scontrol ping: %s", oneLine(out, err))
	}
	return nil
}

// Script is the batch script of a submission: the element's command, nothing else (the
// credentials are in the environment sbatch exports, never here).
func Script(r *fleet.Run, s *fleet.Submission) string {
	args := fleet.ElementCommand(r, s, "\"$SLURM_ARRAY_TASK_ID\"", "\"${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}\"")
	for i, a := range args {
		if !strings.HasPrefix(a, "\"$") {
			args[i] = shellQuote(a)
		}
	}
	return "#!/bin/sh\nexec " + strings.Join(args, " ") + "\n"
}

// SbatchArgs are sbatch's arguments for a submission (the script goes on stdin).
func (e *Engine) SbatchArgs(r *fleet.Run, s *fleet.Submission) []string {
	array := fmt.Sprintf("0-%d", len(s.Tasks)-1)
	if r.Parallel > 0 {
		array += "%" + strconv.Itoa(r.Parallel)
	}
	args := []string{"--parsable", "--job-name=gocodex-" + r.ID, "--array=" + array, "--export=ALL"}
	// A run in a bucket has no shared folder for the log: Slurm's default is kept
	// (slurm-JOB_INDEX.out in the submitting folder), and the elements store exec's in the bucket.
	if dir := r.LogDir(); dir != "" {
		args = append(args, "--output="+dir+"/%A_%a.out")
	}
	if e.opts.Partition != "" {
		args = append(args, "--partition="+e.opts.Partition)
	}
	if e.opts.TimeLimit != "" {
		args = append(args, "--time="+e.opts.TimeLimit)
	}
	return args
}

// Submit runs sbatch.
func (e *Engine) Submit(ctx context.Context, r *fleet.Run, s *fleet.Submission) (string, error) {
	out, err := run(ctx, strings.NewReader(Script(r, s)), "sbatch", e.SbatchArgs(r, s)...)
	if err != nil {
		return "", fmt.Errorf("sbatch: %s", oneLine(out, err))
	}
	id, _, _ := strings.Cut(strings.TrimSpace(out), ";") // "123" or "123;cluster"
	if _, err := strconv.Atoi(id); err != nil {
		return "", fmt.Errorf("sbatch printed %q, not a job id", strings.TrimSpace(out))
	}
	return id, nil
}

// States reads the array's elements from scontrol; a job the controller forgot has none.
func (e *Engine) States(ctx context.Context, jobID string) (map[int]fleet.State, error) {
	out, err := run(ctx, nil, "scontrol", "--oneliner", "show", "job", jobID)
	if err != nil {
		if strings.Contains(out, "Invalid job id") {
			return map[int]fleet.State{}, nil
		}
		return nil, fmt.Errorf("scontrol show job: %s", oneLine(out, err))
	}
	return ParseShowJob(out)
}

// Cancel runs scancel on the job or on its elements.
func (e *Engine) Cancel(ctx context.Context, jobID string, elements []int) error {
	targets := []string{jobID}
	if elements != nil {
		targets = targets[:0]
		for _, el := range elements {
			targets = append(targets, jobID+"_"+strconv.Itoa(el))
		}
	}
	if out, err := run(ctx, nil, "scancel", targets...); err != nil {
		return fmt.Errorf("scancel: %s", oneLine(out, err))
	}
	return nil
}

// ParseShowJob reads `scontrol --oneliner show job` of an array: one line per element, or
// per range of pending elements (ArrayTaskId=2-5%2).
func ParseShowJob(out string) (map[int]fleet.State, error) {
	states := map[int]fleet.State{}
	for _, line := range strings.Split(out, "\n") {
		fields := map[string]string{}
		for _, f := range strings.Fields(line) {
			if k, v, ok := strings.Cut(f, "="); ok {
				fields[k] = v
			}
		}
		ids, state := fields["ArrayTaskId"], fields["JobState"]
		if ids == "" || state == "" {
			continue
		}
		elements, err := fleet.ParseIndexList(ids)
		if err != nil {
			return nil, fmt.Errorf("scontrol: ArrayTaskId=%s: %w", ids, err)
		}
		for _, el := range elements {
			states[el] = stateOf(state)
		}
	}
	return states, nil
}

// stateOf maps Slurm's job states onto the fleet's.
func stateOf(s string) fleet.State {
	switch s {
	case "PENDING", "REQUEUED", "RESV_DEL_HOLD", "REQUEUE_FED", "REQUEUE_HOLD", "SUSPENDED", "STOPPED":
		return fleet.Pending
	case "RUNNING", "CONFIGURING", "COMPLETING", "RESIZING", "SIGNALING", "STAGE_OUT":
		return fleet.Running
	case "COMPLETED":
		return fleet.Succeeded
	case "CANCELLED", "REVOKED":
		return fleet.Cancelled
	default: // FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, PREEMPTED, BOOT_FAIL, DEADLINE
		return fleet.Failed
	}
}

func run(ctx context.Context, stdin *strings.Reader, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func oneLine(out string, err error) string {
	msg := strings.Join(strings.Fields(out), " ")
	if msg == "" && err != nil {
		return err.Error()
	}
	if msg == "" {
		return "no answer"
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Sprintf("%s (exit %d)", msg, ee.ExitCode())
	}
	return msg
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
