package fleet

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
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

	store Store // --out
}

// Submission is one array or Job: element e runs task Tasks[e]. The first submission of a
// run covers every task in order; a retry covers the tasks that did not succeed.
type Submission struct {
	Seq   int       `json:"seq"`
	JobID string    `json:"job_id,omitempty"`
	Tasks []int     `json:"tasks"`
	Time  time.Time `json:"time"`
}

// Dir is the run's folder: a path, or an s3:// URL.
func (r *Run) Dir() string { return r.store.Where(r.ID) }

// Where names file name of the run's folder (summary.jsonl...) for people.
func (r *Run) Where(name string) string { return r.store.Where(key(r.ID, name)) }

// Store is where the run's files live.
func (r *Run) Store() Store { return r.store }

// Out is the run's --out: its store's root.
func (r *Run) Out() string { return r.store.Where("") }

// taskKey is the key of file name in task i's folder.
func (r *Run) taskKey(i int, name string) string { return key(r.ID, r.Tasks[i].ID, name) }

// TaskDir is the folder (or s3:// prefix) task i's element writes.
func (r *Run) TaskDir(i int) string { return r.store.Where(key(r.ID, r.Tasks[i].ID)) }

// LogDir is where engines put the elements' own output (Slurm's --output); "" when the run
// is in a bucket (the element then stores its log in the bucket itself).
func (r *Run) LogDir() string {
	p, ok := r.store.LocalPath(key(r.ID, metaDir, "logs"))
	if !ok {
		return ""
	}
	return p
}

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

// runFile is the key of a run's run.json.
func runFile(id string) string { return key(id, metaDir, "run.json") }

// Create writes a new run's folder under out; it fails if the run exists.
func Create(out string, r *Run) error {
	if err := ValidName(r.ID); err != nil {
		return err
	}
	st, err := OpenStore(out)
	if err != nil {
		return err
	}
	if _, err := st.Read(runFile(r.ID)); err == nil {
		return fmt.Errorf("run %s already exists in %s", r.ID, st.Where(""))
	}
	r.store = st
	if dir := r.LogDir(); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return writeJSON(st, runFile(r.ID), r)
}

// ErrNoRun: the folder holds no run of that id.
var ErrNoRun = errors.New("no such run")

// Load reads run id from out.
func Load(out, id string) (*Run, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return nil, fmt.Errorf("run id %q: %w", id, ErrNoRun)
	}
	st, err := OpenStore(out)
	if err != nil {
		return nil, err
	}
	var r Run
	if err := readJSON(st, runFile(id), &r); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("run %s in %s: %w", id, st.Where(""), ErrNoRun)
		}
		return nil, err
	}
	if r.ID != id {
		return nil, fmt.Errorf("%s holds run %q, not %q", st.Where(runFile(id)), r.ID, id)
	}
	r.store = st
	return &r, nil
}

// LoadDir reads the run in folder dir (an element's --run-dir, as Run.Dir prints it).
func LoadDir(dir string) (*Run, error) {
	return Load(splitRunDir(dir))
}

func (r *Run) submissionKey(seq int) string {
	return key(r.ID, metaDir, "submissions", strconv.Itoa(seq)+".json")
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
	return writeJSON(r.store, r.submissionKey(s.Seq), s)
}

// Submission reads submission seq.
func (r *Run) Submission(seq int) (*Submission, error) {
	var s Submission
	if err := readJSON(r.store, r.submissionKey(seq), &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// Submissions are the run's submissions, oldest first.
func (r *Run) Submissions() ([]*Submission, error) {
	names, err := r.store.List(key(r.ID, metaDir, "submissions"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var subs []*Submission
	for _, name := range names {
		seq, err := strconv.Atoi(strings.TrimSuffix(name, ".json"))
		if err != nil || !strings.HasSuffix(name, ".json") {
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

func writeJSON(st Store, key string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return st.Write(key, append(data, '\n'))
}

// writeFileAtomic writes through a temporary file and a rename: a reader on another node
// never sees half a file.
func writeFileAtomic(path string, data []byte) error {
	return atomicfile.Write(path, data, 0o644)
}

func readJSON(st Store, key string, v any) error {
	data, err := st.Read(key)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", st.Where(key), err)
	}
	return nil
}

// SetDir places a run not yet created (a dry run) under out, reaching nothing.
func (r *Run) SetDir(out string) error {
	st, err := OpenStore(out)
	if err != nil {
		return err
	}
	r.store = st
	return nil
}
