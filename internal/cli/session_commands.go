package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gocodex/gocodex/internal/iostreams"
)

// RunArchive is `gocodex archive SESSION`: the session moves to archived_sessions, where
// listings and resume --last no longer see it. Messages and exit status are Codex's.
func RunArchive(codexHome, arg string, sio *iostreams.IOStreams) int {
	s, err := ResolveSession(codexHome, arg, ActiveSessions)
	if err != nil {
		return sessionError(sio.ErrOut, "archive", err)
	}
	if err := ArchiveSession(codexHome, s, sio.ErrOut); err != nil {
		return sessionError(sio.ErrOut, "archive", err)
	}
	fmt.Fprintf(sio.Out, "Archived session %s.\n", s.userLabel())
	return 0
}

// RunUnarchive is `gocodex unarchive SESSION`: the session moves back under sessions.
func RunUnarchive(codexHome, arg string, sio *iostreams.IOStreams) int {
	s, err := ResolveSession(codexHome, arg, ArchivedSessions)
	if err != nil {
		return sessionError(sio.ErrOut, "unarchive", err)
	}
	if err := UnarchiveSession(codexHome, s, sio.ErrOut); err != nil {
		return sessionError(sio.ErrOut, "unarchive", err)
	}
	fmt.Fprintf(sio.Out, "Unarchived session %s.\n", s.Label())
	return 0
}

// RunDelete is `gocodex delete [--force] SESSION`: after a yes at the terminal (or with
// --force and an id, for scripts), the session's rollout, name and file snapshots are gone.
func RunDelete(ctx context.Context, codexHome, arg string, force bool, sio *iostreams.IOStreams) int {
	if _, isID := ParseSessionUUID(arg); force && !isID {
		fmt.Fprintln(sio.ErrOut, "Error: --force requires a session UUID; names must be confirmed interactively")
		return 1
	}
	s, err := ResolveSession(codexHome, arg, AnySession)
	if err != nil {
		return sessionError(sio.ErrOut, "delete", err)
	}
	if !force {
		if !sio.IsStdinTerminal() {
			fmt.Fprintln(sio.ErrOut, "Error: cannot confirm session deletion without an interactive terminal; rerun with --force and a session UUID")
			return 1
		}
		target := s.ID
		if s.ByName {
			target = "'" + s.Name + "' (" + s.ID + ")"
		}
		fmt.Fprintf(sio.Out, "Permanently delete session %s?\nThis cannot be undone.\nContinue? [y/N]: ", target)
		answer, ok := readAnswer(ctx, sio.In)
		if !ok { // Ctrl-C at the question
			fmt.Fprintln(sio.Out, "\nDelete cancelled.")
			return 130
		}
		switch strings.ToLower(strings.TrimSpace(answer)) {
		case "y", "yes":
		default:
			fmt.Fprintln(sio.Out, "Delete cancelled.")
			return 0
		}
	}
	if err := DeleteSession(codexHome, s, sio.ErrOut); err != nil {
		return sessionError(sio.ErrOut, "delete", err)
	}
	fmt.Fprintf(sio.Out, "Deleted session %s.\n", s.userLabel())
	return 0
}

// readAnswer reads one line, or gives up when ctx ends (the process catches Ctrl-C, so the
// question must not outlive it). The reader is left blocked on the terminal then; the
// process exits right after.
func readAnswer(ctx context.Context, in io.Reader) (string, bool) {
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(in).ReadString('\n')
		line <- s
	}()
	select {
	case s := <-line:
		return s, true
	case <-ctx.Done():
		return "", false
	}
}

// userLabel names the session as the user did: by name (with its id) or by id alone, as
// Codex's archive and delete report (its unarchive always adds a known name: Label).
func (s Session) userLabel() string {
	if s.ByName {
		return s.Label()
	}
	return s.ID
}

// sessionError prints a failed lookup or move. A name that matched nothing reads as Codex's
// "No active session found matching 'x'."; anything else as "failed to <verb> session: why".
func sessionError(w io.Writer, verb string, err error) int {
	msg := err.Error()
	if errors.Is(err, ErrSessionNotFound) {
		msg = strings.TrimPrefix(msg, ErrSessionNotFound.Error()+": ")
		if strings.HasPrefix(msg, "No ") {
			fmt.Fprintln(w, "Error:", msg)
			return 1
		}
	}
	fmt.Fprintf(w, "Error: failed to %s session: %s\n", verb, msg)
	return 1
}
