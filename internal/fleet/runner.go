package fleet

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/host/threads"
	"github.com/gocodex/gocodex/internal/proctree"
	"github.com/gocodex/gocodex/internal/safegit"
)

// The files an element writes in its task's folder.
const (
	EventsFile  = "events.jsonl"
	FinalFile   = "final.txt"
	DiffFile    = "diff.patch"
	RolloutFile = "rollout.jsonl"
)

// Element is what one element of a submission is told by its command line.
type Element struct {
	RunDir     string
	Submission int
	Index      int
	JobID      string
	// Self is the gocodex binary that runs `exec` (os.Executable()).
	Self string
	// Stderr receives exec's standard error (the engine's log of the element).
	Stderr io.Writer
}

// wrapUpTime bounds the diff and the status written after a cancellation (Slurm's KillWait
// is 30 s by default).
const wrapUpTime = 20 * time.Second

// RunElement runs the task of one element: a fresh clone of the task's repository at its
// ref, `gocodex exec --json` in it, then the diff against the ref, the rollout and the final
// status in the task's folder. ctx ends when the engine cancels the element (SIGTERM): the
// agent is stopped and the task is recorded as cancelled. It returns the element's exit code.
func RunElement(ctx context.Context, el Element) (int, error) {
	r, err := LoadDir(el.RunDir)
	if err != nil {
		return 1, err
	}
	sub, err := r.Submission(el.Submission)
	if err != nil {
		return 1, err
	}
	i, err := sub.TaskOfElement(el.Index)
	if err != nil {
		return 1, err
	}
	task := r.Tasks[i]
	work, err := os.MkdirTemp("", "gocodex-fleet-")
	if err != nil {
		return 1, err
	}
	defer os.RemoveAll(work)
	dir, publish, err := r.taskFolder(i, work)
	if err != nil {
		return 1, err
	}
	if r.LogDir() == "" { // no engine log beside the results: keep exec's standard error
		logFile, err := os.Create(filepath.Join(work, "element.log"))
		if err != nil {
			return 1, err
		}
		defer func() {
			logFile.Close()
			if data, err := os.ReadFile(logFile.Name()); err == nil && len(data) > 0 {
				r.store.Write(key(r.ID, metaDir, "logs", strings.ReplaceAll(el.JobID, "/", "_")+".out"), data)
			}
		}()
		el.Stderr = io.MultiWriter(el.Stderr, logFile)
	}
	st := &TaskStatus{ID: task.ID, State: Running, JobID: el.JobID, Submission: sub.Seq, Started: time.Now().UTC()}
	if err := r.WriteStatus(i, st); err != nil {
		return 1, err
	}
	finish := func(state State, code int, reason error) (int, error) {
		if r.superseded(i, sub.Seq) {
			// Cancelled, this element wrapped up after a retry of its task started: the
			// folder is the retry's now.
			fmt.Fprintf(el.Stderr, "fleet: task %s was resubmitted; this element (submission %d) leaves its results alone\n", task.ID, sub.Seq)
			return CancelledExitCode, nil
		}
		if err := publish(); err != nil {
			if reason == nil {
				reason = err
			} else {
				reason = fmt.Errorf("%w; %w", reason, err)
			}
			if state == Succeeded {
				state = Failed
			}
		}
		now := time.Now().UTC()
		st.State, st.ExitCode, st.Finished = state, &code, &now
		if reason != nil {
			st.Error = reason.Error()
		}
		if err := r.WriteStatus(i, st); err != nil {
			return 1, err
		}
		if state != Succeeded && code == 0 {
			code = 1
		}
		return code, nil
	}

	clone := filepath.Join(work, "repo")
	commit, err := safegit.CloneAt(ctx, task.Repo, clone, task.Ref)
	if err != nil {
		if ctx.Err() != nil {
			return finish(Cancelled, CancelledExitCode, errors.New("cancelled while cloning"))
		}
		return finish(Failed, 1, fmt.Errorf("clone %s: %w", task.Repo, err))
	}
	st.Commit = commit

	code, runErr := runExec(ctx, el, r, task, clone, dir)
	wrapCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wrapUpTime)
	defer cancel()
	var problems []string
	if runErr != nil {
		problems = append(problems, runErr.Error())
	}
	if err := writeDiff(wrapCtx, clone, commit, filepath.Join(dir, DiffFile)); err != nil {
		problems = append(problems, "diff: "+err.Error())
	}
	threadID, usage, err := readEvents(filepath.Join(dir, EventsFile))
	if err != nil {
		problems = append(problems, "events: "+err.Error())
	}
	st.Usage = usage
	if threadID != "" {
		if err := copyRollout(threadID, filepath.Join(dir, RolloutFile)); err != nil {
			problems = append(problems, "rollout: "+err.Error())
		}
	}
	var reason error
	if len(problems) > 0 {
		reason = errors.New(strings.Join(problems, "; "))
	}
	switch {
	case ctx.Err() != nil:
		return finish(Cancelled, CancelledExitCode, reason)
	case code == 0 && runErr == nil:
		return finish(Succeeded, 0, reason)
	default:
		return finish(Failed, code, reason)
	}
}

// superseded is true when task i's status file is of a submission later than seq: a retry
// owns the task's folder, and an element of seq must not overwrite its files or status.
func (r *Run) superseded(i, seq int) bool {
	st, err := r.ReadStatus(i)
	return err == nil && st != nil && st.Submission > seq
}

// taskFiles are the files an element writes in its task's folder, status.json aside.
var taskFiles = []string{EventsFile, FinalFile, DiffFile, RolloutFile}

// taskFolder is the local folder task i's element writes its files in, emptied of an earlier
// attempt's, and publish, which puts them in the store (a bucket) before the final status.
// For a folder store the files are written in place and publish does nothing.
func (r *Run) taskFolder(i int, work string) (dir string, publish func() error, err error) {
	if p, ok := r.store.LocalPath(key(r.ID, r.Tasks[i].ID)); ok {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return "", nil, err
		}
		for _, f := range taskFiles {
			os.Remove(filepath.Join(p, f))
		}
		return p, func() error { return nil }, nil
	}
	for _, f := range taskFiles {
		if err := r.store.Remove(r.taskKey(i, f)); err != nil {
			return "", nil, err
		}
	}
	dir = filepath.Join(work, "out")
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", nil, err
	}
	publish = func() error {
		var errs []error
		for _, f := range taskFiles {
			data, err := os.ReadFile(filepath.Join(dir, f))
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err == nil {
				err = r.store.Write(r.taskKey(i, f), data)
			}
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	}
	return dir, publish, nil
}

// runExec runs `gocodex exec --json` on the task in the clone, the prompt on stdin, its events
// into the task's folder. The credentials are in the environment it inherits.
func runExec(ctx context.Context, el Element, r *Run, task Task, clone, dir string) (int, error) {
	taskConfig, err := ConfigArgs(task)
	if err != nil {
		return 1, err
	}
	args := []string{"exec", "--json", "--cd", clone, "--output-last-message", filepath.Join(dir, FinalFile)}
	for _, c := range r.Config {
		args = append(args, "-c", c)
	}
	args = append(append(args, taskConfig...), "-")
	events, err := os.Create(filepath.Join(dir, EventsFile))
	if err != nil {
		return 1, err
	}
	defer events.Close()
	cmd := exec.Command(el.Self, args...)
	cmd.Dir = clone
	cmd.Stdin = strings.NewReader(task.Prompt)
	cmd.Stdout = events
	cmd.Stderr = el.Stderr
	proctree.Prepare(cmd)
	if err := cmd.Start(); err != nil {
		return 1, err
	}
	tree, err := proctree.Attach(cmd)
	if err != nil {
		cmd.Wait()
		return 1, err
	}
	defer tree.Release()
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			tree.Kill()
		case <-done:
		}
	}()
	err = cmd.Wait()
	close(done)
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &ee):
		if c := ee.ExitCode(); c > 0 {
			return c, nil
		}
		return 1, nil // ended by a signal
	default:
		return 1, err
	}
}

// writeDiff writes the clone's changes (untracked files too) against commit, as a binary
// patch; the clone's index is the clone's own.
func writeDiff(ctx context.Context, clone, commit, path string) error {
	repo := safegit.New(safegit.Options{Dir: clone, GitDir: filepath.Join(clone, ".git"), WorkTree: clone})
	if err := repo.AddAll(ctx); err != nil {
		return err
	}
	out, err := repo.Output(ctx, "diff", "--cached", "--binary", commit, "--")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, out)
}

// readEvents finds the thread id and sums the turns' usage in exec's JSONL events.
func readEvents(path string) (threadID string, usage *Usage, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	for sc.Scan() {
		var ev struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
			Usage    *Usage `json:"usage"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch ev.Type {
		case "thread.started":
			threadID = ev.ThreadID
		case "turn.completed":
			if ev.Usage != nil {
				if usage == nil {
					usage = &Usage{}
				}
				usage.InputTokens += ev.Usage.InputTokens
				usage.CachedInputTokens += ev.Usage.CachedInputTokens
				usage.OutputTokens += ev.Usage.OutputTokens
			}
		}
	}
	return threadID, usage, sc.Err()
}

// copyRollout copies the thread's rollout from CODEX_HOME into the task's folder.
func copyRollout(threadID, dst string) error {
	home, err := config.CodexHome(os.Getenv)
	if err != nil {
		return err
	}
	src, _, err := threads.New(home).Find(threadID)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return writeFileAtomic(dst, data)
}
