// Package fleetcli is `gocodex fleet`: run, status, retry, cancel, collect, and the hidden
// run-task an engine's element executes.
package fleetcli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/fleet"
	"github.com/gocodex/gocodex/internal/iostreams"
)

// NewCommand is `gocodex fleet`, writing to s; exitWith turns an exit code into the error
// cobra returns (nil for 0).
func NewCommand(s *iostreams.IOStreams, exitWith func(code int) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fleet",
		Short: "Run many agent tasks on a batch engine (Slurm, Kubernetes)",
		Long: "Hands a file of tasks to a batch engine the cluster already runs, as one Slurm job\n" +
			"array or Kubernetes Indexed Job: each task runs `gocodex exec --json` in a fresh clone\n" +
			"of its repository and writes its events, final message, diff, rollout and status\n" +
			"under OUT/<run-id>/<task-id>/.",
	}
	var endpoint string
	cmd.PersistentFlags().StringVar(&endpoint, "s3-endpoint", "",
		"with an s3:// --out: the S3-compatible endpoint, http(s)://HOST[:PORT] (sets "+fleet.EndpointEnv+", which the tasks inherit)")
	cmd.PersistentPreRunE = func(*cobra.Command, []string) error {
		if endpoint == "" {
			return nil
		}
		// The engines export this process's environment to the tasks (never their argv).
		return os.Setenv(fleet.EndpointEnv, endpoint)
	}
	cmd.AddCommand(newRunCommand(s), newStatusCommand(s), newRetryCommand(s),
		newCancelCommand(s), newCollectCommand(s), newRunTaskCommand(s, exitWith))
	return cmd
}

// outDir checks --out: a folder (made absolute), or an s3:// URL.
func outDir(out string) (string, error) {
	st, err := fleet.OpenStore(out)
	if err != nil {
		return "", err
	}
	return st.Where(""), nil
}

func loadRun(ctx context.Context, out, id string) (*fleet.Run, fleet.Engine, error) {
	st, err := fleet.OpenStore(out)
	if err != nil {
		return nil, nil, err
	}
	if _, local := st.LocalPath(""); !local {
		if err := st.Check(ctx); err != nil {
			return nil, nil, err
		}
	}
	r, err := fleet.Load(st.Where(""), id)
	if err != nil {
		return nil, nil, err
	}
	eng, err := newEngine(r.Engine, r.EngineOptions)
	if err != nil {
		return nil, nil, err
	}
	return r, eng, nil
}

func newRunCommand(s *iostreams.IOStreams) *cobra.Command {
	var (
		engine, tasksPath, out, name, binary string
		parallel                             int
		config                               []string
		dryRun                               bool
		eo                                   engineFlags
	)
	cmd := &cobra.Command{
		Use:   "run --engine slurm|kubernetes --tasks TASKS.jsonl --out DIR",
		Short: "Submit every task of a tasks file as one array (Slurm) or Indexed Job (Kubernetes)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if tasksPath == "" {
				return errors.New("--tasks is required: a JSONL file of {\"id\", \"repo\", \"ref\", \"prompt\", \"config\"}")
			}
			if parallel < 0 {
				return errors.New("--parallel must be 0 (no limit) or more")
			}
			if err := fleet.ValidName(name); err != nil {
				return err
			}
			for _, c := range config {
				if !strings.Contains(c, "=") {
					return fmt.Errorf("-c %q: expected key=value", c)
				}
			}
			dir, err := outDir(out)
			if err != nil {
				return err
			}
			tasks, err := fleet.ReadTasksFile(tasksPath)
			if err != nil {
				return err
			}
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			if err := fleet.Resolve(tasks, cwd); err != nil {
				return err
			}
			opts, err := eo.options(engine, dir)
			if err != nil {
				return err
			}
			if binary == "" {
				if binary, err = defaultBinary(engine); err != nil {
					return err
				}
			}
			now := time.Now()
			r := &fleet.Run{ID: fleet.NewRunID(name, now), Name: name, Engine: engine, Created: now.UTC(),
				EngineOptions: opts, Config: config, Parallel: parallel, Binary: binary, Tasks: tasks}
			if dryRun {
				return printDryRun(s.Out, r, dir)
			}
			eng, err := newEngine(engine, opts)
			if err != nil {
				return err
			}
			if err := fleet.Start(cmd.Context(), eng, dir, r); err != nil {
				return err
			}
			subs, err := r.Submissions()
			if err != nil {
				return err
			}
			fmt.Fprintf(s.ErrOut, "fleet: run %s: %d tasks submitted to %s as job %s; results in %s\n",
				r.ID, len(tasks), engine, subs[0].JobID, r.Dir())
			fmt.Fprintln(s.Out, r.ID)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&engine, "engine", "", "the batch engine: slurm or kubernetes")
	f.StringVar(&tasksPath, "tasks", "", "the tasks file (JSONL: id, repo, ref, prompt, config)")
	f.StringVar(&out, "out", "", "the shared folder, or s3://BUCKET/PREFIX, the results go to (OUT/<run-id>/<task-id>/)")
	f.StringVar(&name, "name", "fleet", "the run's name (the run id starts with it)")
	f.IntVar(&parallel, "parallel", 0, "at most this many tasks at once (0: as many as the engine allows)")
	f.StringArrayVarP(&config, "config", "c", nil, "a configuration override for every task (key=value)")
	f.StringVar(&binary, "binary", "", "the gocodex the elements run (default: this binary for slurm, gocodex on the image's PATH for kubernetes)")
	f.BoolVar(&dryRun, "dry-run", false, "print what would be submitted (the batch script, the Job manifest) and submit nothing")
	eo.register(cmd)
	return cmd
}

func defaultBinary(engine string) (string, error) {
	if engine == "kubernetes" {
		return "gocodex", nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding this binary for the elements (give --binary): %w", err)
	}
	return filepath.EvalSymlinks(self)
}

// runCommand is a command on one existing run: `NAME RUN --out DIR`, the run and its engine
// loaded before do runs.
func runCommand(use, short string, do func(cmd *cobra.Command, r *fleet.Run, eng fleet.Engine) error) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, eng, err := loadRun(cmd.Context(), out, args[0])
			if err != nil {
				return err
			}
			return do(cmd, r, eng)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "the run's results folder or s3:// bucket")
	return cmd
}

func newStatusCommand(s *iostreams.IOStreams) *cobra.Command {
	var asJSON bool
	cmd := runCommand("status RUN --out DIR", "Each task's state, from the engine and the tasks' status files",
		func(cmd *cobra.Command, r *fleet.Run, eng fleet.Engine) error {
			views, err := fleet.Status(cmd.Context(), eng, r)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(s.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					Run    string              `json:"run"`
					Engine string              `json:"engine"`
					Counts map[fleet.State]int `json:"counts"`
					Tasks  []fleet.TaskView    `json:"tasks"`
				}{r.ID, r.Engine, fleet.Counts(views), views})
			}
			return fleet.PrintStatus(s.Out, r, views)
		})
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the states as JSON")
	return cmd
}

func newRetryCommand(s *iostreams.IOStreams) *cobra.Command {
	return runCommand("retry RUN --out DIR", "Submit again, as a new array or Job, only the tasks that did not succeed",
		func(cmd *cobra.Command, r *fleet.Run, eng fleet.Engine) error {
			sub, err := fleet.Retry(cmd.Context(), eng, r)
			if err != nil {
				return err
			}
			if sub == nil {
				fmt.Fprintf(s.Out, "fleet: run %s: every task succeeded; nothing to retry\n", r.ID)
				return nil
			}
			ids := make([]string, len(sub.Tasks))
			for k, i := range sub.Tasks {
				ids[k] = r.Tasks[i].ID
			}
			fmt.Fprintf(s.Out, "fleet: run %s: retrying %s as job %s\n", r.ID, strings.Join(ids, ", "), sub.JobID)
			return nil
		})
}

func newCancelCommand(s *iostreams.IOStreams) *cobra.Command {
	var taskIDs []string
	cmd := runCommand("cancel RUN --out DIR [--task ID]...", "Stop the run's unfinished tasks (or only the ones named)",
		func(cmd *cobra.Command, r *fleet.Run, eng fleet.Engine) error {
			if err := fleet.Cancel(cmd.Context(), eng, r, taskIDs); err != nil {
				return err
			}
			fmt.Fprintf(s.Out, "fleet: run %s: cancel sent to %s\n", r.ID, r.Engine)
			return nil
		})
	cmd.Flags().StringArrayVar(&taskIDs, "task", nil, "cancel only this task (repeatable)")
	return cmd
}

func newCollectCommand(s *iostreams.IOStreams) *cobra.Command {
	return runCommand("collect RUN --out DIR", "A table of the results and OUT/<run-id>/summary.jsonl: state, tokens, diff size, duration per task",
		func(cmd *cobra.Command, r *fleet.Run, eng fleet.Engine) error {
			views, err := fleet.Status(cmd.Context(), eng, r)
			if err != nil {
				return err
			}
			results, err := fleet.Collect(r, views)
			if err != nil {
				return err
			}
			if err := fleet.PrintResults(s.Out, results); err != nil {
				return err
			}
			fmt.Fprintf(s.ErrOut, "fleet: summary written to %s\n", r.Where(fleet.SummaryFile))
			return nil
		})
}

func newRunTaskCommand(s *iostreams.IOStreams, exitWith func(code int) error) *cobra.Command {
	var el fleet.Element
	cmd := &cobra.Command{
		Use:    "run-task --run-dir DIR --submission N --element E --job-id ID",
		Short:  "Run one element of a fleet submission (what the engine's job executes)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			self, err := os.Executable()
			if err != nil {
				return err
			}
			el.Self, el.Stderr = self, s.ErrOut
			code, err := fleet.RunElement(cmd.Context(), el)
			if err != nil {
				return err
			}
			return exitWith(code)
		},
	}
	f := cmd.Flags()
	f.StringVar(&el.RunDir, "run-dir", "", "the run's folder")
	f.IntVar(&el.Submission, "submission", 0, "the submission")
	f.IntVar(&el.Index, "element", -1, "the element's index in the submission")
	f.StringVar(&el.JobID, "job-id", "", "the engine's id of the element")
	return cmd
}
