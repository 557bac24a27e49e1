// Package fleet runs many agent tasks on a batch engine the user already operates (Slurm,
// Kubernetes): the engine-neutral part. A run is one folder DIR/<run-id>/ holding the tasks,
// the submissions made to the engine, and one folder per task that the task's element writes
// (events, final message, diff, rollout, status). The engines (internal/fleet/slurm,
// internal/fleet/kubernetes) only submit, query, and cancel arrays of elements; which task an
// element runs, which tasks a retry resubmits, and what state a task is in are decided here.
package fleet

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Task is one line of a tasks file.
type Task struct {
	ID     string `json:"id"`
	Repo   string `json:"repo"`
	Ref    string `json:"ref,omitempty"`
	Prompt string `json:"prompt"`
	// Config are -c key=value overrides for this task only, after the run's.
	Config map[string]any `json:"config,omitempty"`
}

// validID keeps an id usable as a folder name on every system and away from the run's own
// ".fleet" folder: 1 to 128 letters, digits, '.', '_', '-', starting with a letter or digit.
// (No regexp: compiling one would cost every command of the binary at start-up.)
func validID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i, c := range id {
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// LineError is a tasks file line that cannot be run.
type LineError struct {
	File string
	Line int
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// ParseTasks reads a tasks file: one JSON object per line, blank lines skipped. name is the
// file's name for errors. It checks each line's shape and that ids are unique; Validate
// checks the repositories.
func ParseTasks(r io.Reader, name string) ([]Task, error) {
	var tasks []Task
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		fail := func(format string, args ...any) error {
			return &LineError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)}
		}
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		var t Task
		if err := dec.Decode(&t); err != nil {
			return nil, fail("not a task object (%v); a line is {\"id\", \"repo\", \"ref\", \"prompt\", \"config\"}", err)
		}
		if dec.More() {
			return nil, fail("more than one JSON value on the line")
		}
		switch {
		case t.ID == "":
			return nil, fail("the task has no \"id\"")
		case !validID(t.ID):
			return nil, fail("task id %q: use letters, digits, '.', '_' and '-' (starting with a letter or digit, at most 128)", t.ID)
		case t.Repo == "":
			return nil, fail("task %q has no \"repo\" (a path or URL)", t.ID)
		case strings.TrimSpace(t.Prompt) == "":
			return nil, fail("task %q has no \"prompt\"", t.ID)
		case strings.HasPrefix(t.Repo, "-") || strings.HasPrefix(t.Ref, "-"):
			return nil, fail("task %q: a repo or ref may not start with '-'", t.ID)
		}
		if _, err := ConfigArgs(t); err != nil {
			return nil, fail("%v", err)
		}
		if first, dup := seen[t.ID]; dup {
			return nil, fail("duplicate task id %q (first on line %d)", t.ID, first)
		}
		seen[t.ID] = line
		tasks = append(tasks, t)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("%s: no tasks", name)
	}
	return tasks, nil
}

// ReadTasksFile is ParseTasks of a file.
func ReadTasksFile(path string) ([]Task, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseTasks(f, path)
}

// IsURL tells a repository URL from a path.
func IsURL(repo string) bool {
	return strings.Contains(repo, "://") || strings.HasPrefix(repo, "git@")
}

// Resolve makes each local repository path absolute (elements run elsewhere) and checks that
// it is a git repository; URLs are left to the element's clone. The errors name the task.
func Resolve(tasks []Task, baseDir string) error {
	for i := range tasks {
		t := &tasks[i]
		if IsURL(t.Repo) {
			if strings.HasPrefix(t.Repo, "file://") {
				if err := checkRepo(strings.TrimPrefix(t.Repo, "file://")); err != nil {
					return fmt.Errorf("task %q: repo %s: %w", t.ID, t.Repo, err)
				}
			}
			continue
		}
		p := t.Repo
		if !filepath.IsAbs(p) {
			p = filepath.Join(baseDir, p)
		}
		if err := checkRepo(p); err != nil {
			return fmt.Errorf("task %q: repo %s: %w", t.ID, t.Repo, err)
		}
		t.Repo = filepath.Clean(p)
	}
	return nil
}

func checkRepo(dir string) error {
	st, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return errors.New("does not exist")
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return errors.New("is not a directory")
	}
	for _, git := range []string{filepath.Join(dir, ".git"), filepath.Join(dir, "HEAD")} {
		if _, err := os.Stat(git); err == nil {
			return nil
		}
	}
	return errors.New("is not a git repository (no .git)")
}
