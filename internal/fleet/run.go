package fleet

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/atomicfile"
)

// metaDir is the run's own folder inside DIR/<run-id>/; task ids cannot start with '.'.
const metaDir = ".fleet"

// Run is DIR/<run-id>/.fleet/run.json: what every element and every later command reads.
type Run struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Engine  string    `json:"engine"`
	Created time.Time `json:"created"`
	// EngineOptions are the engine's flags (partition, namespace, image...), kept for retry.
	EngineOptions map[string]string `json:"engine_options,omitempty"`
	// Config are the run's -c key=value overrides, given to every task before its own.
	Config   []string `json:"config,omitempty"`
	Parallel int      `json:"parallel"`
	// Binary is the gocodex the elements run.
	Binary string `json:"binary"`
	Tasks  []Task `json:"tasks"`

	dir string // DIR/<run-id>
}

// Submission is one array or Job: element e runs task Tasks[e]. The first submission of a
// run covers every task in order; a retry covers the tasks that did not succeed.
type Submission struct {
	Seq   int       `json:"seq"`
	JobID string    `json:"job_id,omitempty"`
	Tasks []int     `json:"tasks"`
	Time  time.Time `json:"time"`
}

// Dir is the run's folder.
func (r *Run) Dir() string { return r.dir }

// TaskDir is the folder task i's element writes.
func (r *Run) TaskDir(i int) string { return filepath.Join(r.dir, r.Tasks[i].ID) }

// LogDir is where engines put the elements' own output (Slurm's --output).
func (r *Run) LogDir() string { return filepath.Join(r.dir, metaDir, "logs") }

// NewRunID is name-<UTC time>-<4 random hex>: sortable, unique without coordination.
func NewRunID(name string, now time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%s-%s", name, now.UTC().Format("20060102-150405"), hex.EncodeToString(b[:]))
}

// ValidName checks a run name (it becomes part of folder and job names).
func ValidName(name string) error {
	if !validID(name) || len(name) > 40 {
		return fmt.Errorf("run name %q: use letters, digits, '.', '_' and '-' (at most 40)", name)
	}
	return nil
}

// Create writes a new run's folder under out; it fails if the run exists.
func Create(out string, r *Run) error {
	if err := ValidName(r.ID); err != nil {
		return err
	}
	r.dir = filepath.Join(out, r.ID)
	if err := os.MkdirAll(filepath.Join(r.dir, metaDir, "submissions"), 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(r.LogDir(), 0o755); err != nil {
		return err
	}
	return writeJSONAtomic(filepath.Join(r.dir, metaDir, "run.json"), r)
}

// ErrNoRun: the folder holds no run of that id.
var ErrNoRun = errors.New("no such run")

// Load reads run id from out.
func Load(out, id string) (*Run, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return nil, fmt.Errorf("run id %q: %w", id, ErrNoRun)
	}
	dir := filepath.Join(out, id)
	var r Run
	if err := readJSON(filepath.Join(dir, metaDir, "run.json"), &r); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("run %s in %s: %w", id, out, ErrNoRun)
		}
		return nil, err
	}
	r.dir = dir
	return &r, nil
}

// LoadDir reads the run in folder dir (an element's --run-dir).
func LoadDir(dir string) (*Run, error) {
	return Load(filepath.Dir(dir), filepath.Base(dir))
}

func (r *Run) submissionPath(seq int) string {
	return filepath.Join(r.dir, metaDir, "submissions", strconv.Itoa(seq)+".json")
}

// NewSubmission records the next submission of tasks (before the engine sees it: an element
// may start before the engine has answered).
func (r *Run) NewSubmission(tasks []int, now time.Time) (*Submission, error) {
	subs, err := r.Submissions()
	if err != nil {
		return nil, err
	}
	s := &Submission{Seq: len(subs) + 1, Tasks: tasks, Time: now.UTC()}
	return s, r.SaveSubmission(s)
}

// SaveSubmission writes s (with the engine's job id once it has one).
func (r *Run) SaveSubmission(s *Submission) error {
	return writeJSONAtomic(r.submissionPath(s.Seq), s)
}

// Submission reads submission seq.
func (r *Run) Submission(seq int) (*Submission, error) {
	var s Submission
	if err := readJSON(r.submissionPath(seq), &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// Submissions are the run's submissions, oldest first.
func (r *Run) Submissions() ([]*Submission, error) {
	entries, err := os.ReadDir(filepath.Join(r.dir, metaDir, "submissions"))
	if err != nil {
		return nil, err
	}
	var subs []*Submission
	for _, e := range entries {
		seq, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".json"))
		if err != nil || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		s, err := r.Submission(seq)
		if err != nil {
			return nil, err
		}
		subs = append(subs, s)
	}
	sort.Slice(subs, func(i, j int) bool { return subs[i].Seq < subs[j].Seq })
	return subs, nil
}

// TaskOfElement is the task index element e of submission s runs.
func (s *Submission) TaskOfElement(e int) (int, error) {
	if e < 0 || e >= len(s.Tasks) {
		return 0, fmt.Errorf("element %d is outside submission %d's %d elements", e, s.Seq, len(s.Tasks))
	}
	return s.Tasks[e], nil
}

// ElementOfTask is the element of s that runs task i, or -1.
func (s *Submission) ElementOfTask(i int) int {
	for e, t := range s.Tasks {
		if t == i {
			return e
		}
	}
	return -1
}

// TaskIndex finds a task by id.
func (r *Run) TaskIndex(id string) (int, error) {
	for i, t := range r.Tasks {
		if t.ID == id {
			return i, nil
		}
	}
	return 0, fmt.Errorf("run %s has no task %q", r.ID, id)
}

func writeJSONAtomic(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, append(data, '\n'))
}

// writeFileAtomic writes through a temporary file and a rename: a reader on another node
// never sees half a file.
func writeFileAtomic(path string, data []byte) error {
	return atomicfile.Write(path, data, 0o644)
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// SetDir places a run not yet created (a dry run) under out.
func (r *Run) SetDir(out string) { r.dir = filepath.Join(out, r.ID) }
