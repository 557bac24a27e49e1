package snapshot

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gocodex/gocodex/internal/filelock"
)

// Refusals a caller may branch on; the error text says the particular reason.
var (
	// ErrNotEnoughTurns: the rewind goes past the first recorded turn.
	ErrNotEnoughTurns = errors.New("not enough recorded turns")
	// ErrForeign: the journal was made on another machine or for another directory.
	ErrForeign = errors.New("snapshots were taken elsewhere")
	// ErrConflict: a file the rewind would restore was also edited by hand.
	ErrConflict = errors.New("files edited by hand would be overwritten")
)

// RefPrefix is where the git snapshots of a thread are pinned.
func RefPrefix(threadID string) string { return "refs/gocodex/snapshots/" + threadID + "/" }

// Thread is the snapshot journal of one thread. Its methods are safe for concurrent use
// within a process; two processes must not drive the same thread's journal at once.
type Thread struct {
	mu  sync.Mutex
	dir string
	// want is the journal this process would start: this machine, this root, no turns.
	want *journal
	j    *journal
	st   store
	// foreign, when set, is why this journal cannot be used here.
	foreign error
}

// Open loads (or starts) the journal of threadID in codexHome/snapshots/<thread-id>/ for a
// turn running in cwd. The root snapshotted is the git work tree's top when cwd is in one
// (and git is installed), else cwd itself. A journal recorded on another machine or for
// another root opens, but every operation but Turns then fails with ErrForeign.
func Open(codexHome, threadID, cwd string) (*Thread, error) {
	if err := checkThreadID(threadID); err != nil {
		return nil, err
	}
	if codexHome == "" || cwd == "" {
		return nil, fmt.Errorf("snapshot: open %s: CODEX_HOME and the working directory must be set", threadID)
	}
	home, err := filepath.Abs(codexHome)
	if err != nil {
		return nil, fmt.Errorf("snapshot: open %s: %w", threadID, err)
	}
	if cwd, err = filepath.Abs(cwd); err != nil {
		return nil, fmt.Errorf("snapshot: open %s: %w", threadID, err)
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("snapshot: open %s: working directory %s is not a directory", threadID, cwd)
	}
	dir := journalDir(home, threadID)
	root, gitDir, isGit, err := findGitRoot(context.Background(), cwd)
	if err != nil {
		return nil, err
	}
	here := thisMachine()
	want := &journal{Version: journalVersion, ThreadID: threadID, MachineID: here.ID, Host: here.Host, Root: cwd, Store: storeFiles}
	if isGit {
		want.Root, want.GitDir, want.Store = root, gitDir, storeGit
	}
	j, ok, err := loadJournal(dir)
	if err != nil {
		return nil, err
	}
	t := &Thread{dir: dir, want: want}
	t.adopt(j, ok)
	t.st = newStore(want, dir, home)
	if fs, isFiles := t.st.(*fileStore); isFiles && t.foreign == nil {
		fs.last, fs.rewinds = lastSnapshot(t.j), t.j.Rewinds
	}
	return t, nil
}

// adopt takes j (read from disk; ok false when there is none) as the thread's journal.
func (t *Thread) adopt(j *journal, ok bool) {
	t.foreign = nil
	if !ok {
		fresh := *t.want
		t.j = &fresh
		return
	}
	t.j = j
	here := machine{ID: t.want.MachineID, Host: t.want.Host}
	if there := (machine{ID: j.MachineID, Host: j.Host}); !there.sameAs(here) {
		t.foreign = fmt.Errorf("snapshot: %w: thread %s's snapshots were taken on %s; this is %s", ErrForeign, j.ThreadID, there, here)
	} else if j.Root != t.want.Root || j.Store != t.want.Store {
		t.foreign = fmt.Errorf("snapshot: %w: thread %s's snapshots are of %s (%s), this turn's tree is %s (%s)", ErrForeign, j.ThreadID, j.Root, j.Store, t.want.Root, t.want.Store)
	}
}

// begin starts an operation: it takes the thread's lock (in this process and, where the
// system has flock, across processes) and re-reads the journal, which another Thread of
// the same id may have moved on. end releases both.
func (t *Thread) begin() (end func(), err error) {
	t.mu.Lock()
	if err := t.ensureDir(); err != nil {
		t.mu.Unlock()
		return nil, err
	}
	unlock, err := filelock.Exclusive(filepath.Join(t.dir, "lock"))
	if err != nil {
		t.mu.Unlock()
		return nil, fmt.Errorf("snapshot: lock %s: %w", t.dir, err)
	}
	end = func() {
		unlock()
		t.mu.Unlock()
	}
	j, ok, err := loadJournal(t.dir)
	if err != nil {
		end()
		return nil, err
	}
	t.adopt(j, ok)
	if t.foreign != nil {
		end()
		return nil, t.foreign
	}
	if fs, isFiles := t.st.(*fileStore); isFiles && fs.rewinds != t.j.Rewinds {
		// A rewind (maybe by another process) released content the cache may name.
		fs.cache, fs.last, fs.rewinds = nil, lastSnapshot(t.j), t.j.Rewinds
	}
	return end, nil
}

// lastSnapshot is the newest snapshot id in j, or "".
func lastSnapshot(j *journal) string {
	for i := len(j.Turns) - 1; i >= 0; i-- {
		switch tr := j.Turns[i]; {
		case tr.After != "":
			return tr.After
		case tr.Before != "":
			return tr.Before
		}
	}
	return ""
}

func newStore(j *journal, dir, codexHome string) store {
	if j.Store == storeGit {
		g := &gitStore{root: j.Root, gitDir: j.GitDir, index: filepath.Join(dir, "index"), refPrefix: RefPrefix(j.ThreadID)}
		if rel, err := filepath.Rel(j.Root, codexHome); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			// CODEX_HOME (with this journal) inside the work tree is not the user's work.
			g.exclude = []string{":(exclude,top)" + filepath.ToSlash(rel)}
		}
		return g
	}
	return &fileStore{root: j.Root, dir: filepath.Join(dir, "files"), skip: []string{codexHome}}
}

// Root is the directory the snapshots are of.
func (t *Thread) Root() string { return t.want.Root }

// BeginTurn snapshots the tree before turn turnID and records the turn.
func (t *Thread) BeginTurn(ctx context.Context, turnID string) error {
	end, err := t.begin()
	if err != nil {
		return err
	}
	defer end()
	id, err := t.st.snapshot(ctx)
	if err != nil {
		return err
	}
	seq := t.j.NextSeq
	if err := t.st.pin(ctx, strconv.Itoa(seq)+"/before", id); err != nil {
		return err
	}
	t.j.NextSeq++
	t.j.Turns = append(t.j.Turns, TurnRecord{TurnID: turnID, Seq: seq, Before: id, BeganAt: time.Now().UTC()})
	return t.save()
}

// QuietTurn records turn turnID, which ran no tool and so changed no file, without taking
// any snapshot: only the count of turns needs it.
func (t *Thread) QuietTurn(ctx context.Context, turnID string) error {
	end, err := t.begin()
	if err != nil {
		return err
	}
	defer end()
	now := time.Now().UTC()
	t.j.Turns = append(t.j.Turns, TurnRecord{TurnID: turnID, Seq: t.j.NextSeq, Quiet: true, BeganAt: now, EndedAt: now})
	t.j.NextSeq++
	return t.save()
}

// EndTurn snapshots the tree after turn turnID, the last turn begun; later differences from
// it are the user's hand edits.
func (t *Thread) EndTurn(ctx context.Context, turnID string) error {
	end, err := t.begin()
	if err != nil {
		return err
	}
	defer end()
	n := len(t.j.Turns)
	if n == 0 || t.j.Turns[n-1].TurnID != turnID {
		return fmt.Errorf("snapshot: end of turn %s, which is not the last turn begun", turnID)
	}
	last := &t.j.Turns[n-1]
	if last.After != "" {
		return fmt.Errorf("snapshot: turn %s has already ended", turnID)
	}
	id, err := t.st.snapshot(ctx)
	if err != nil {
		return err
	}
	if err := t.st.pin(ctx, strconv.Itoa(last.Seq)+"/after", id); err != nil {
		return err
	}
	last.After, last.EndedAt = id, time.Now().UTC()
	return t.save()
}

func (t *Thread) save() error {
	if err := t.ensureDir(); err != nil {
		return err
	}
	return t.j.save(t.dir)
}

// ensureDir creates the journal dir (and CODEX_HOME/snapshots) private to the user.
func (t *Thread) ensureDir() error {
	if err := os.MkdirAll(t.dir, 0o700); err != nil {
		return fmt.Errorf("snapshot: create %s: %w", t.dir, err)
	}
	return nil
}

// Turns lists the recorded turns, oldest first, as the journal on disk has them (or, when it
// cannot be read, as this Thread last saw them).
func (t *Thread) Turns() []TurnRecord {
	t.mu.Lock()
	defer t.mu.Unlock()
	if j, ok, err := loadJournal(t.dir); err == nil && ok {
		return append([]TurnRecord(nil), j.Turns...)
	}
	return append([]TurnRecord(nil), t.j.Turns...)
}

// Prune removes a thread's journal and the git refs that pinned its snapshots (the objects
// then go with the repository's next gc). A thread without snapshots is not an error. With a
// corrupt journal the directory is removed all the same, and the error names the refs that
// may be left.
func Prune(codexHome, threadID string) error {
	if err := checkThreadID(threadID); err != nil {
		return err
	}
	dir := journalDir(codexHome, threadID)
	j, ok, loadErr := loadJournal(dir)
	var refErr error
	if ok && j.Store == storeGit {
		if _, err := os.Stat(j.GitDir); err == nil {
			g := &gitStore{gitDir: j.GitDir, index: filepath.Join(dir, "index"), refPrefix: RefPrefix(threadID)}
			refErr = g.pruneRefs(context.Background())
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("snapshot: prune %s: %w", threadID, err)
	}
	if loadErr != nil {
		return fmt.Errorf("%w (removed it; refs under %s may remain in the repository: git for-each-ref %s)", loadErr, RefPrefix(threadID), RefPrefix(threadID))
	}
	if refErr != nil {
		return fmt.Errorf("snapshot: prune %s: journal removed, refs left: %w", threadID, refErr)
	}
	return nil
}
