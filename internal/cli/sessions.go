package cli

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/internal/host/threads"
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
	store := threads.New(codexHome)
	names, err := store.Names()
	if err != nil {
		return Session{}, err
	}
	if id, ok := ParseSessionUUID(arg); ok {
		path, archived, err := store.Find(id)
		if err != nil {
			return Session{}, fmt.Errorf("%w: no saved session has id %s", ErrSessionNotFound, id)
		}
		s := Session{ID: id, Name: names[id].Name, Path: path, Archived: archived}
		if !stateMatches(state, archived) {
			return s, fmt.Errorf("%w: session %s is %s", ErrSessionNotFound, id, map[bool]string{true: "already archived", false: "not archived"}[archived])
		}
		return s, nil
	}
	var named []threads.Name
	for _, n := range names {
		if n.Name == arg {
			named = append(named, n)
		}
	}
	sort.Slice(named, func(i, j int) bool { return named[i].Order > named[j].Order })
	for _, n := range named {
		path, archived, err := store.Find(n.ID)
		if err != nil || !stateMatches(state, archived) || (interactiveOnly && !interactiveSource(store, path)) {
			continue
		}
		return Session{ID: n.ID, Name: n.Name, ByName: true, Path: path, Archived: archived}, nil
	}
	return Session{}, fmt.Errorf("%w: No %s session found matching '%s'.", ErrSessionNotFound, state, arg)
}

func stateMatches(state SessionState, archived bool) bool {
	return state == AnySession || (state == ArchivedSessions) == archived
}

// interactiveSource reads the head of a rollout and says whether a person drove the thread
// (source "cli" or "vscode"), not exec or an MCP client.
func interactiveSource(store *threads.Service, path string) bool {
	head, _, err := store.Summary(path) // a thread with no user message yet counts too
	if err != nil {
		return false
	}
	switch head.Source {
	case "cli", "vscode":
		return true
	}
	return false
}

// ArchiveSession moves the session to CODEX_HOME/archived_sessions through the thread
// service (what its stores could not follow is a warning: the session is archived).
func ArchiveSession(codexHome string, s Session, warn io.Writer) error {
	_, err := threads.New(codexHome).Archive(s.ID)
	return warnPartial(warn, err)
}

// UnarchiveSession moves the session back under CODEX_HOME/sessions through the thread
// service.
func UnarchiveSession(codexHome string, s Session, warn io.Writer) error {
	_, err := threads.New(codexHome).Unarchive(s.ID)
	return warnPartial(warn, err)
}

// DeleteSession removes the session through the thread service: its rollout, its name in
// session_index.jsonl, its row in Codex's state database and its file snapshots.
func DeleteSession(codexHome string, s Session, warn io.Writer) error {
	return warnPartial(warn, threads.New(codexHome).Delete(s.ID))
}

// warnPartial reports what the thread service could not mirror as a warning (the
// operation happened) and passes any other error on.
func warnPartial(w io.Writer, err error) error {
	if threads.IsPartial(err) {
		fmt.Fprintf(w, "Warning: %v\n", err)
		return nil
	}
	return err
}
