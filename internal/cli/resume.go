package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/host/threads"
)

// ResumeRequest is what `gocodex resume` and `gocodex fork` were asked to open.
type ResumeRequest struct {
	// Fork starts a new thread from a copy of the chosen one instead of continuing it.
	Fork bool
	// Session is a session id or name ("" without one).
	Session string
	// Last takes the most recently updated session of this directory and provider.
	Last bool
	// All considers every directory and provider (--all).
	All bool
	// IncludeNonInteractive lets exec threads be chosen by --last (resume's flag).
	IncludeNonInteractive bool
}

func (r ResumeRequest) verb() string {
	if r.Fork {
		return "fork"
	}
	return "resume"
}

// ErrNoPicker means neither a session nor --last was given: at a terminal the UI opens its
// picker of saved sessions; without one the sessions are listed (PrintSessionList).
var ErrNoPicker = errors.New("no session chosen")

// ErrUnknownSession matches FindForUI's error for an id or name no saved session has.
var ErrUnknownSession = errors.New("unknown session")

// unknownSessionError keeps FindForUI's message for a person and is ErrUnknownSession.
type unknownSessionError struct{ msg string }

func (e unknownSessionError) Error() string        { return e.msg }
func (e unknownSessionError) Is(target error) bool { return target == ErrUnknownSession }

// interactiveSources are the faces a person drives; resume --last and the session list
// consider only their threads unless asked otherwise, as Codex does.
var interactiveSources = []string{"cli", "vscode"}

// FindForUI finds the thread a resume or fork request names and returns its id; "" with no
// error means --last found nothing (the UI then starts a new thread, as Codex does). An id
// or name that matches no saved session is an error saying so and how to choose one; no
// session and no --last is ErrNoPicker. Nothing is written.
func FindForUI(cfg *config.Config, r ResumeRequest) (string, error) {
	switch {
	case r.Session != "":
		s, err := ResolveSession(cfg.CodexHome, r.Session, ActiveSessions)
		if err != nil {
			if errors.Is(err, ErrSessionNotFound) && s.Archived {
				return "", fmt.Errorf("session %s is archived; run `gocodex unarchive %s` to %s it", s.ID, s.ID, r.verb())
			}
			return "", unknownSessionError{fmt.Sprintf("No saved session found with ID %s. Run `gocodex %s` without an ID to choose from existing sessions.", r.Session, r.verb())}
		}
		return s.ID, nil
	case r.Last:
		s, err := threads.New(cfg.CodexHome).Latest(r.listOptions(cfg))
		if errors.Is(err, threads.ErrNotFound) {
			return "", nil
		}
		return s.ID, err
	}
	return "", ErrNoPicker
}

// OpenForUI reads the rollout of thread id for the UI to continue; a fork first copies it
// into a new thread, recorded beside the original. An empty id is a new thread (nil).
func OpenForUI(cfg *config.Config, r ResumeRequest, id string) (*threads.Rollout, error) {
	if id == "" {
		return nil, nil
	}
	open := app.Open{ResumeID: id}
	if r.Fork {
		open = app.Open{ForkID: id}
	}
	return app.OpenRollout(cfg, open)
}

func (r ResumeRequest) listOptions(cfg *config.Config) threads.ListOptions {
	var lo threads.ListOptions
	if !r.All {
		lo.Cwd, lo.Providers = cfg.Cwd, []string{cfg.ModelProviderID}
	}
	if !r.IncludeNonInteractive {
		lo.Sources = interactiveSources
	}
	return lo
}

// sessionListSize is how many sessions the list in place of the picker shows.
const sessionListSize = 20

// PrintSessionList is what resume and fork print without a terminal, where the picker cannot
// open: the most recently updated sessions the picker would offer (this directory's unless
// All), each with its id and its name or first message, and how to open one. It returns the
// exit status: 1, since nothing was resumed.
func PrintSessionList(cfg *config.Config, r ResumeRequest, out, errOut io.Writer) int {
	lo := r.listOptions(cfg)
	lo.ByUpdated, lo.PageSize = true, sessionListSize
	store := threads.New(cfg.CodexHome)
	page, err := store.List(lo)
	if err != nil {
		fmt.Fprintln(errOut, "Error:", err)
		return 1
	}
	names, err := store.Names()
	if err != nil {
		fmt.Fprintln(errOut, "Error:", err)
		return 1
	}
	fmt.Fprintf(errOut, "No session named, and the session picker needs a terminal: name the session to %s, or use --last for the most recent.\n", r.verb())
	if len(page.Threads) == 0 {
		where := "in this directory (--all shows every directory)"
		if r.All {
			where = "saved"
		}
		fmt.Fprintf(errOut, "There are no sessions %s.\n", where)
		return 1
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	header := "UPDATED\tSESSION ID\tNAME OR FIRST MESSAGE"
	if r.All {
		header += "\tCWD"
	}
	fmt.Fprintln(tw, header)
	for _, t := range page.Threads {
		title := names[t.ID].Name
		if title == "" {
			title = oneLine(t.Preview, 60)
		}
		row := t.UpdatedAt.Local().Format(time.DateTime[:16]) + "\t" + t.ID + "\t" + title
		if r.All {
			row += "\t" + t.Cwd
		}
		fmt.Fprintln(tw, row)
	}
	tw.Flush()
	fmt.Fprintf(errOut, "Run `gocodex %s <SESSION_ID>` with one of these ids (or a session name).\n", r.verb())
	return 1
}

// oneLine is s on one line, cut to at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
