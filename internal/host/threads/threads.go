// Package threads is the host's thread service: the one owner of stored threads. It alone
// touches the rollout store (internal/rollout), the session index of thread names
// (internal/sessionindex), Codex's state database (internal/codexstate) and the per-turn
// snapshots (internal/snapshot) for threads at rest; every face and CLI command lists,
// reads, opens (resume, --last, fork), archives, unarchives, renames and deletes threads
// through it, so each operation is written once.
//
// # One order, one error policy
//
// The rollout is the source of truth. Every operation changes it first (or, for a rename,
// the session index, where names live), and a failure there is the operation's error with
// nothing else changed. The stores that follow only mirror it — the session index, Codex's
// state database, the snapshots — and run in that order, each whether or not the one before
// it failed; their failures come back together as a *PartialError, which means the
// operation itself happened. Every face reports a PartialError as a warning (the CLI on
// stderr, the app-server in its log) and goes on.
//
// Opening always goes through the full load (Load), which follows a fork's history base
// (Codex 0.169 forks point at a prefix of their source instead of copying it), so a fork
// of a fork carries the whole history.
package threads

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/internal/codexstate"
	"github.com/gocodex/gocodex/internal/rollout"
	"github.com/gocodex/gocodex/internal/sessionindex"
	"github.com/gocodex/gocodex/internal/snapshot"
	"github.com/gocodex/gocodex/protocol"
)

// The stored-thread vocabulary the faces use, defined by the rollout store.
type (
	// Rollout is a thread loaded from its rollout, history bases followed.
	Rollout = rollout.Rollout
	// Summary is one entry of a listing.
	Summary = rollout.ThreadSummary
	// ListOptions filter and page a listing.
	ListOptions = rollout.ListOptions
	// Page is one page of a listing.
	Page = rollout.Page
	// GitInfo is the git state a thread started in.
	GitInfo = rollout.GitInfo
	// TurnSettings are the settings of a thread's latest turn.
	TurnSettings = rollout.TurnSettings
	// BaseInstructions are the instructions a thread started with.
	BaseInstructions = rollout.BaseInstructions
	// Name is a thread's entry in the session index.
	Name = sessionindex.Name
)

const (
	// HistoryModePaginated is Codex 0.169's rollout form.
	HistoryModePaginated = rollout.HistoryModePaginated
	// TimestampFormat is how rollouts write times.
	TimestampFormat = rollout.TimestampFormat
)

// ErrNotFound means no stored thread has the id.
var ErrNotFound = rollout.ErrNotFound

// PartialError is an operation that happened on the rollout (the truth) while some of the
// stores that mirror it were not updated. Faces report it as a warning.
type PartialError struct {
	Op, ID string
	Err    error // the stores' failures, joined
}

func (e *PartialError) Error() string {
	return fmt.Sprintf("thread %s %s, but: %v", e.ID, e.Op, e.Err)
}

func (e *PartialError) Unwrap() error { return e.Err }

// IsPartial says whether err is only a PartialError: the operation happened.
func IsPartial(err error) bool {
	var p *PartialError
	return errors.As(err, &p)
}

// Service is the thread service of one CODEX_HOME.
type Service struct {
	codexHome string
	now       func() time.Time
}

// New is the thread service of codexHome.
func New(codexHome string) *Service { return &Service{codexHome: codexHome, now: time.Now} }

// CodexHome is the home the service keeps threads in.
func (s *Service) CodexHome() string { return s.codexHome }

// Find returns the rollout of thread id and whether it is archived.
func (s *Service) Find(id string) (path string, archived bool, err error) {
	return rollout.Find(s.codexHome, id)
}

// List is one page of the stored threads matching opts: the one listing every face uses.
func (s *Service) List(opts ListOptions) (Page, error) { return rollout.List(s.codexHome, opts) }

// Latest is the most recently updated thread matching opts (resume --last).
func (s *Service) Latest(opts ListOptions) (Summary, error) { return rollout.Latest(s.codexHome, opts) }

// Summary reads the head of the rollout at path, as a listing would.
func (s *Service) Summary(path string) (Summary, bool, error) { return rollout.ReadSummary(path) }

// LatestTurnSettings reads the settings of the rollout's last turn from its tail.
func LatestTurnSettings(path string) (TurnSettings, bool) {
	return rollout.LatestTurnSettings(path)
}

// Names are the threads' current names (session_index.jsonl), by id.
func (s *Service) Names() (map[string]Name, error) { return sessionindex.Read(s.codexHome) }

// Name is thread id's current name, "" without one (or when the index is unreadable).
func (s *Service) Name(id string) string { return s.NameMap()[id] }

// NameMap is every thread's current name by id (empty when the index is unreadable).
func (s *Service) NameMap() map[string]string { return sessionindex.Names(s.codexHome) }

// Read is the full load of the rollout at path: its history bases come first, so the
// thread resumes, replays and forks with its whole history. The history the engine resumes
// from and the events the faces replay are decoded once, side by side on two cores, and
// shared by every later use of the returned Rollout.
func (s *Service) Read(path string) (*Rollout, error) {
	r, err := rollout.Load(s.codexHome, path)
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	wg.Go(func() { r.Reconstruct() })
	r.InitialMessages()
	wg.Wait()
	return r, nil
}

// ReadHead reads only the rollout at path, without its history bases: for what is the
// thread's own (its session_meta, its base instructions), never to resume or fork it.
func (s *Service) ReadHead(path string) (*Rollout, error) { return rollout.ReadFile(path) }

// Open says which stored thread a face continues: one by id, the latest (--last), or a
// fork of one. The zero value starts a new thread.
type Open struct {
	ResumeID string
	// ResumeLast takes the most recently updated thread of Cwd and Provider (of every
	// directory with AllDirectories). Nothing to resume starts a new thread, as in Codex.
	ResumeLast     bool
	AllDirectories bool
	Cwd, Provider  string
	// ForkID starts a new thread from a copy of this one, without its last ForkDropTurns
	// user turns.
	ForkID        string
	ForkDropTurns int
}

// Open finds and loads the rollout o names (nil for a new thread): the one way every face
// resumes and forks by id or --last. An archived thread can be forked, not resumed.
func (s *Service) Open(o Open) (*Rollout, error) {
	var path string
	switch {
	case o.ResumeID != "" || o.ForkID != "":
		id := o.ResumeID
		if o.ForkID != "" {
			id = o.ForkID
		}
		p, archived, err := s.Find(id)
		if err != nil {
			return nil, err
		}
		if archived && o.ForkID == "" {
			// An archived thread is out of the way until it is unarchived, as in Codex.
			return nil, fmt.Errorf("%w for thread id %s (it is archived)", ErrNotFound, id)
		}
		path = p
	case o.ResumeLast:
		lo := ListOptions{}
		if !o.AllDirectories {
			lo.Cwd, lo.Providers = o.Cwd, []string{o.Provider}
		}
		sum, err := s.Latest(lo)
		if errors.Is(err, ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		path = sum.Path
	default:
		return nil, nil
	}
	if o.ForkID == "" {
		return s.Read(path)
	}
	_, forked, err := s.Fork(path, ForkOptions{DropTurns: o.ForkDropTurns})
	return forked, err
}

// ForkOptions choose what a fork keeps.
type ForkOptions struct {
	// NewID is the fork's thread id ("" makes a new UUIDv7).
	NewID string
	// DropTurns leaves out the source's last n user turns.
	DropTurns int
}

// Fork copies the thread at path into a new stored thread and loads it. The source is read
// with the full load first, so everything its history bases hold is copied: a fork of a
// fork (Codex's or ours) keeps the whole history. It returns the source as loaded too.
func (s *Service) Fork(path string, opts ForkOptions) (src, fork *Rollout, err error) {
	if src, err = s.Read(path); err != nil {
		return nil, nil, err
	}
	if opts.NewID == "" {
		id, err := uuid.NewV7()
		if err != nil {
			return nil, nil, fmt.Errorf("fork: thread id: %w", err)
		}
		opts.NewID = id.String()
	}
	forked, err := rollout.Fork(s.codexHome, src, rollout.ForkOptions{NewID: opts.NewID, DropLastTurns: opts.DropTurns, Now: s.now})
	if err != nil {
		return nil, nil, err
	}
	if fork, err = s.Read(forked); err != nil {
		return nil, nil, err
	}
	return src, fork, nil
}

// Archive moves thread id's rollout to CODEX_HOME/archived_sessions, then tells Codex's
// state database. It returns the archived rollout's path.
func (s *Service) Archive(id string) (string, error) {
	path, err := rollout.Archive(s.codexHome, id)
	if err != nil {
		return "", err
	}
	return path, partial("archived", id, codexstate.SetArchived(s.codexHome, id, path, true, s.now()))
}

// Unarchive moves thread id's rollout back under CODEX_HOME/sessions, then tells Codex's
// state database. It returns the rollout's new path.
func (s *Service) Unarchive(id string) (string, error) {
	path, err := rollout.Unarchive(s.codexHome, id)
	if err != nil {
		return "", err
	}
	return path, partial("unarchived", id, codexstate.SetArchived(s.codexHome, id, path, false, s.now()))
}

// Rename records name as thread id's name in the session index (where names live, as in
// Codex), then in Codex's state database. The thread must be stored (a loaded thread not
// yet recorded is the caller's to check).
func (s *Service) Rename(id, name string) error {
	if err := sessionindex.Append(s.codexHome, id, name); err != nil {
		return fmt.Errorf("record thread name: %w", err)
	}
	return partial("renamed", id, codexstate.SetName(s.codexHome, id, name))
}

// Delete removes thread id's rollout, then its name from the session index, its row from
// Codex's state database and the snapshots its turns took.
func (s *Service) Delete(id string) error {
	path, _, err := s.Find(id)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("delete thread %s: %w", id, err)
	}
	var errs []error
	if err := sessionindex.Drop(s.codexHome, id); err != nil {
		errs = append(errs, fmt.Errorf("its name stays in %s: %w", sessionindex.FileName, err))
	}
	if err := codexstate.DeleteThread(s.codexHome, id); err != nil {
		errs = append(errs, fmt.Errorf("Codex's state database keeps its row: %w", err))
	}
	if err := snapshot.Prune(s.codexHome, id); err != nil {
		errs = append(errs, fmt.Errorf("its file snapshots stay: %w", err))
	}
	return partial("deleted", id, errors.Join(errs...))
}

// partial wraps the failures of the mirroring stores (nil: none).
func partial(op, id string, err error) error {
	if err == nil {
		return nil
	}
	return &PartialError{Op: op, ID: id, Err: err}
}

// Migrate converts older rollouts to Codex 0.169's paginated form (migrate-rollouts).
func (s *Service) Migrate(opts MigrateOptions) (MigrateReport, error) {
	return rollout.Migrate(s.codexHome, opts)
}

// The migration's vocabulary.
type (
	MigrateOptions = rollout.MigrateOptions
	MigrateReport  = rollout.MigrateReport
	MigrateStatus  = rollout.MigrateStatus
)

const (
	MigrateEligible         = rollout.MigrateEligible
	MigrateMigrated         = rollout.MigrateMigrated
	MigrateSkippedBusy      = rollout.MigrateSkippedBusy
	MigrateSkippedEmpty     = rollout.MigrateSkippedEmpty
	MigrateAlreadyPaginated = rollout.MigrateAlreadyPaginated
	MigrateFailed           = rollout.MigrateFailed
)

// NewPath is where a new thread started at t is recorded.
func (s *Service) NewPath(t time.Time, id string) string { return rollout.NewPath(s.codexHome, t, id) }

// CollectGitInfo is the git state of cwd a new thread records.
func CollectGitInfo(cwd string) *GitInfo { return rollout.CollectGitInfo(cwd) }

// FormatTimestamp writes t as rollouts do.
func FormatTimestamp(t time.Time) string { return rollout.FormatTimestamp(t) }

// BackwardsCursor is the cursor of a listing that pages back towards newer threads from s.
func BackwardsCursor(s Summary, opts ListOptions) string { return rollout.BackwardsCursor(s, opts) }

// CursorAfter is the cursor of the listing page after s.
func CursorAfter(s Summary, opts ListOptions) string { return rollout.CursorAfter(s, opts) }

// DropLastTurns is history without its last n user turns (an ephemeral fork's history).
func DropLastTurns(items []protocol.ResponseItem, n int) []protocol.ResponseItem {
	return rollout.DropLastTurns(items, n)
}
