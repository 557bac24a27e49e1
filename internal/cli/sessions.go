package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/internal/codexstate"
	"github.com/gocodex/gocodex/internal/rollout"
	"github.com/gocodex/gocodex/internal/sessionindex"
	"github.com/gocodex/gocodex/internal/snapshot"
)

// SessionState is where a command looks for the session it is given.
type SessionState int

const (
	// ActiveSessions are under CODEX_HOME/sessions (archive).
	ActiveSessions SessionState = iota
	// ArchivedSessions are under CODEX_HOME/archived_sessions (unarchive).
	ArchivedSessions
	// AnySession is either (delete).
	AnySession
)

func (s SessionState) String() string {
	switch s {
	case ActiveSessions:
		return "active"
	case ArchivedSessions:
		return "archived"
	}
	return "active or archived"
}

// Session is a saved thread a command acts on.
type Session struct {
	ID       string
	Name     string // its current name in session_index.jsonl, "" without one
	ByName   bool   // the user named it rather than giving its id
	Path     string
	Archived bool
}

// Label is how messages name the session: its name and id when it has a name.
func (s Session) Label() string {
	if s.Name == "" {
		return s.ID
	}
	return s.Name + " (" + s.ID + ")"
}

// ErrSessionNotFound is a session argument that matches nothing in the wanted state.
var ErrSessionNotFound = errors.New("session not found")

// ParseSessionUUID says whether arg is a session id: as in Codex, a UUID in any of its
// spellings takes precedence over a name. The id comes back in the canonical form.
func ParseSessionUUID(arg string) (string, bool) {
	u, err := uuid.Parse(strings.TrimSpace(arg))
	if err != nil {
		return "", false
	}
	return u.String(), true
}

// ResolveSession finds the saved session arg names: by id when arg is a UUID, otherwise by
// its current name. A name matches only interactive sessions (the terminal UI's and the
// editors'), as Codex's lookup does; of several with the name, the last named wins.
func ResolveSession(codexHome, arg string, state SessionState) (Session, error) {
	return resolveSession(codexHome, arg, state, true)
}

// ResolveSessionAnySource is ResolveSession for `exec resume` and `exec fork`, whose names
// find threads of every source, exec ones included, as Codex's do.
func ResolveSessionAnySource(codexHome, arg string, state SessionState) (Session, error) {
	return resolveSession(codexHome, arg, state, false)
}

func resolveSession(codexHome, arg string, state SessionState, interactiveOnly bool) (Session, error) {
	names, err := sessionindex.Read(codexHome)
	if err != nil {
		return Session{}, err
	}
	if id, ok := ParseSessionUUID(arg); ok {
		path, archived, err := rollout.Find(codexHome, id)
		if err != nil {
			return Session{}, fmt.Errorf("%w: no saved session has id %s", ErrSessionNotFound, id)
		}
		s := Session{ID: id, Name: names[id].Name, Path: path, Archived: archived}
		if !stateMatches(state, archived) {
			return s, fmt.Errorf("%w: session %s is %s", ErrSessionNotFound, id, map[bool]string{true: "already archived", false: "not archived"}[archived])
		}
		return s, nil
	}
	var named []sessionindex.Name
	for _, n := range names {
		if n.Name == arg {
			named = append(named, n)
		}
	}
	sort.Slice(named, func(i, j int) bool { return named[i].Order > named[j].Order })
	for _, n := range named {
		path, archived, err := rollout.Find(codexHome, n.ID)
		if err != nil || !stateMatches(state, archived) || (interactiveOnly && !interactiveSource(path)) {
			continue
		}
		return Session{ID: n.ID, Name: n.Name, ByName: true, Path: path, Archived: archived}, nil
	}
	return Session{}, fmt.Errorf("%w: No %s session found matching '%s'.", ErrSessionNotFound, state, arg)
}

func stateMatches(state SessionState, archived bool) bool {
	return state == AnySession || (state == ArchivedSessions) == archived
}

// interactiveSource reads the session_meta line at the head of a rollout and says whether a
// person drove the thread (source "cli" or "vscode"), not exec or an MCP client.
func interactiveSource(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	// The head carries the base instructions (tens of KiB); a MiB is plenty.
	line, err := bufio.NewReaderSize(io.LimitReader(f, 1<<20), 64<<10).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return false
	}
	r, err := rollout.Parse(bytes.NewReader(line))
	if err != nil {
		return false
	}
	switch r.Meta.SourceString() {
	case "cli", "vscode":
		return true
	}
	return false
}

// ArchiveSession moves the session to CODEX_HOME/archived_sessions, and tells Codex's state
// database (a failure there goes to warn: the session is archived all the same).
func ArchiveSession(codexHome string, s Session, warn io.Writer) error {
	path, err := rollout.Archive(codexHome, s.ID)
	if err != nil {
		return err
	}
	warnCodexState(warn, codexstate.SetArchived(codexHome, s.ID, path, true, time.Now()))
	return nil
}

// UnarchiveSession moves the session back under CODEX_HOME/sessions, and tells Codex's state
// database.
func UnarchiveSession(codexHome string, s Session, warn io.Writer) error {
	path, err := rollout.Unarchive(codexHome, s.ID)
	if err != nil {
		return err
	}
	warnCodexState(warn, codexstate.SetArchived(codexHome, s.ID, path, false, time.Now()))
	return nil
}

// warnCodexState reports a failed update of Codex's state database: Codex's own lists may
// show the session as it was until Codex repairs its row.
func warnCodexState(w io.Writer, err error) {
	if err != nil {
		fmt.Fprintf(w, "Warning: Codex's state database was not updated: %v\n", err)
	}
}

// DeleteSession removes the session's rollout, its name in session_index.jsonl, the
// snapshots its turns took of the files they changed and its row in Codex's state database.
func DeleteSession(codexHome string, s Session, warn io.Writer) error {
	if err := os.Remove(s.Path); err != nil {
		return err
	}
	warnCodexState(warn, codexstate.DeleteThread(codexHome, s.ID))
	if err := sessionindex.Drop(codexHome, s.ID); err != nil {
		return fmt.Errorf("session deleted, but its name stays in %s: %w", sessionindex.FileName, err)
	}
	if err := snapshot.Prune(codexHome, s.ID); err != nil {
		return fmt.Errorf("session deleted, but not its file snapshots: %w", err)
	}
	return nil
}
