package snapshot

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// journalVersion is the format of journal.json; a journal of another version is refused
// rather than misread.
const journalVersion = 1

const journalFile = "journal.json"

// TurnRecord is one recorded turn: the snapshots of the tree before and after it.
type TurnRecord struct {
	TurnID string `json:"turn_id"`
	// Seq numbers the turn within the journal; it names the turn's git refs.
	Seq int `json:"seq"`
	// Before and After are store snapshot ids (a git tree id, or a manifest hash). After is
	// empty when the turn never ended (the process stopped mid-turn).
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Quiet marks a turn that ran no tool, so changed nothing: it has no snapshots (taking
	// none keeps a plain answer as fast as it was) and counts only as a turn.
	Quiet   bool      `json:"quiet,omitempty"`
	BeganAt time.Time `json:"began_at"`
	EndedAt time.Time `json:"ended_at,omitzero"`
}

// journal is the on-disk state of one thread's snapshots.
type journal struct {
	Version   int    `json:"version"`
	ThreadID  string `json:"thread_id"`
	MachineID string `json:"machine_id,omitempty"`
	Host      string `json:"host"`
	// Root is the directory snapshotted: the git work tree's top, or the turn's cwd.
	Root string `json:"root"`
	// Store is "git" or "files".
	Store string `json:"store"`
	// GitDir is the repository's absolute git dir (a linked worktree's own one).
	GitDir  string `json:"git_dir,omitempty"`
	NextSeq int    `json:"next_seq"`
	// Rewinds counts rewinds: each may drop stored content another process's cache names.
	Rewinds int          `json:"rewinds"`
	Turns   []TurnRecord `json:"turns"`
}

// safeThreadID keeps a thread id safe as a directory name and a git ref component: 1 to 128
// letters, digits, '-' and '_', not starting with '-' or '_'. (A regexp with {0,127} would
// cost milliseconds to compile at every start-up.)
func safeThreadID(id string) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || (c != '-' && c != '_')) {
			return false
		}
	}
	return true
}

func checkThreadID(id string) error {
	if !safeThreadID(id) {
		return fmt.Errorf("snapshot: thread id %q is not usable as a snapshot name (letters, digits, '-' and '_' only)", id)
	}
	return nil
}

func journalDir(codexHome, threadID string) string {
	return filepath.Join(codexHome, "snapshots", threadID)
}

// loadJournal reads dir's journal; ok is false when there is none yet.
func loadJournal(dir string) (j *journal, ok bool, err error) {
	path := filepath.Join(dir, journalFile)
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("snapshot: read journal: %w", err)
	}
	j = new(journal)
	if err := json.Unmarshal(data, j); err != nil {
		return nil, false, fmt.Errorf("snapshot: journal %s is corrupt (%v); remove it to start the thread's snapshots afresh", path, err)
	}
	if err := j.check(); err != nil {
		return nil, false, fmt.Errorf("snapshot: journal %s is corrupt: %v; remove it to start the thread's snapshots afresh", path, err)
	}
	return j, true, nil
}

// check rejects journals that parse but cannot be what this package wrote.
func (j *journal) check() error {
	if j.Version != journalVersion {
		return fmt.Errorf("version %d, this gocodex reads version %d", j.Version, journalVersion)
	}
	if j.Store != storeGit && j.Store != storeFiles {
		return fmt.Errorf("unknown store %q", j.Store)
	}
	if !filepath.IsAbs(j.Root) {
		return fmt.Errorf("root %q is not an absolute path", j.Root)
	}
	if j.Store == storeGit && !filepath.IsAbs(j.GitDir) {
		return fmt.Errorf("git dir %q is not an absolute path", j.GitDir)
	}
	for i, tr := range j.Turns {
		if tr.Quiet && tr.Before == "" && tr.After == "" {
			// checked below for its sequence number only
		} else if tr.Quiet || tr.Before == "" || !validSnapshotID(tr.Before) || (tr.After != "" && !validSnapshotID(tr.After)) {
			return fmt.Errorf("turn %d (%s) has a malformed snapshot id", i+1, tr.TurnID)
		}
		if tr.Seq >= j.NextSeq || (i > 0 && tr.Seq <= j.Turns[i-1].Seq) {
			return fmt.Errorf("turn %d (%s) has an out-of-order sequence number %d", i+1, tr.TurnID, tr.Seq)
		}
	}
	return nil
}

// validSnapshotID accepts the hex ids both stores use (sha-1 or sha-256 git, sha-256 files).
func validSnapshotID(id string) bool {
	if len(id) != 40 && len(id) != 64 {
		return false
	}
	return strings.Trim(id, "0123456789abcdef") == ""
}

// save writes the journal atomically (0600, in a 0700 directory).
func (j *journal) save(dir string) error {
	data, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return fmt.Errorf("snapshot: encode journal: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("snapshot: create journal dir: %w", err)
	}
	return writeFileAtomic(filepath.Join(dir, journalFile), data, 0o600)
}

// writeFileAtomic writes data to path through a temporary file in the same directory and a
// rename, so a reader sees the old file or the new one, never a part, and syncs it.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	return writeFile(path, data, perm, true)
}

// writeFile is writeFileAtomic with the fsync optional.
func writeFile(path string, data []byte, perm os.FileMode, sync bool) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("snapshot: write %s: %w", path, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("snapshot: write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Chmod(perm); err != nil {
		return fail(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("snapshot: write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("snapshot: write %s: %w", path, err)
	}
	return nil
}
