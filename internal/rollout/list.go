package rollout

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gocodex/gocodex/protocol"
)

// ThreadSummary is one entry of a listing, read from the head of its rollout.
type ThreadSummary struct {
	ID            string
	Path          string
	ForkedFromID  string
	Preview       string // the first message the user typed
	Cwd           string
	ModelProvider string
	Source        string
	CLIVersion    string
	Git           *GitInfo
	// HistoryMode is HistoryModePaginated or "" (the older form), as Codex's thread/list
	// reports it (historyMode "paginated" or "legacy").
	HistoryMode string
	// Originator is the client that started the thread (session_meta's originator).
	Originator string
	// Model and ReasoningEffort are the first turn's (its turn_context, read with the head);
	// LatestTurnSettings reads the latest from the tail.
	Model           string
	ReasoningEffort string
	CreatedAt       time.Time
	UpdatedAt       time.Time // the file's modification time
	Archived        bool
}

// ListOptions filter and page a listing.
type ListOptions struct {
	// PageSize is the number of threads per page (default 25).
	PageSize int
	// Cursor continues after the page that returned it ("" starts with the newest).
	Cursor string
	// Cwd, when set, keeps threads started in that directory.
	Cwd string
	// Providers, when set, keeps threads of those model providers.
	Providers []string
	// Sources, when set, keeps threads recorded by those faces ("exec", "cli", "vscode", …).
	Sources []string
	// ExcludeIDs leaves these threads out.
	ExcludeIDs []string
	// Archived lists archived_sessions instead of sessions.
	Archived bool
	// ByUpdated orders by last modification instead of creation; Ascending puts the oldest
	// first. Either one makes a listing stat every rollout (see listOrdered).
	ByUpdated bool
	Ascending bool
}

// Page is one page of a listing, newest first; NextCursor is "" after the last page.
type Page struct {
	Threads    []ThreadSummary
	NextCursor string
}

// headLimit bounds what is read of a file to find its first user message: Codex's
// session_meta carries the base instructions and the first turn starts with long context
// messages, so the first user message can be tens of KiB in.
const (
	headMaxBytes = 1 << 20
	headMaxLines = 200
)

// List returns a page of threads, newest first. It walks the date folders newest first and
// reads only the head of each file, so the first page costs a few directory reads and about
// PageSize file heads however many rollouts there are. A filter that passes few threads
// would read every head; past the first few dozen, heads come from a per-folder cache
// (index.go) kept beside the files. The cursor is the last returned file
// name (rollout names sort by creation time), opaque to callers. Files without a message
// from the user (a thread that never ran a turn) are not listed, as in Codex.
func List(codexHome string, opts ListOptions) (Page, error) {
	size := opts.PageSize
	if size <= 0 {
		size = 25
	}
	if opts.ByUpdated || opts.Ascending {
		return listOrdered(codexHome, opts, size)
	}
	after := ""
	if opts.Cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(opts.Cursor)
		if err != nil || !strings.HasPrefix(string(b), "rollout-") {
			return Page{}, fmt.Errorf("invalid cursor %q", opts.Cursor)
		}
		after = string(b)
	}
	var page Page
	h := newHeads()
	defer h.flush()
	visit := func(path string) (bool, error) {
		s, ok := h.summary(path)
		if !ok || !matches(s, opts) {
			return false, nil // unreadable, not started or filtered out: skip it
		}
		st, err := os.Stat(path)
		if err != nil {
			return false, nil // gone meanwhile (archived)
		}
		s.UpdatedAt, s.Archived = st.ModTime(), opts.Archived
		page.Threads = append(page.Threads, s)
		if len(page.Threads) == size {
			page.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(filepath.Base(path)))
			return true, nil
		}
		return false, nil
	}
	var err error
	if opts.Archived {
		err = walkFlat(filepath.Join(codexHome, ArchivedDir), after, visit)
	} else {
		err = walkDated(filepath.Join(codexHome, SessionsDir), after, visit)
	}
	if errors.Is(err, errStop) {
		err = nil
	}
	return page, err
}

func matches(s ThreadSummary, opts ListOptions) bool {
	if opts.Cwd != "" && filepath.Clean(s.Cwd) != filepath.Clean(opts.Cwd) {
		return false
	}
	if len(opts.Providers) > 0 && !slices.Contains(opts.Providers, s.ModelProvider) {
		return false
	}
	if len(opts.Sources) > 0 && !slices.Contains(opts.Sources, s.Source) {
		return false
	}
	if slices.Contains(opts.ExcludeIDs, s.ID) {
		return false
	}
	return true
}

// errStop ends a walk early.
var errStop = errors.New("stop")

// walkDated visits rollout files under sessions/YYYY/MM/DD newest first, skipping names not
// below after (when set).
func walkDated(root, after string, visit func(string) (bool, error)) error {
	afterDay := ""
	if after != "" {
		afterDay = nameDay(after)
	}
	years, err := readDirNames(root)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	for _, y := range years {
		if afterDay != "" && y > afterDay[:4] {
			continue
		}
		months, _ := readDirNames(filepath.Join(root, y))
		for _, m := range months {
			if afterDay != "" && y+m > afterDay[:6] {
				continue
			}
			days, _ := readDirNames(filepath.Join(root, y, m))
			for _, d := range days {
				if afterDay != "" && y+m+d > afterDay {
					continue
				}
				err := walkFlat(filepath.Join(root, y, m, d), after, visit)
				if errors.Is(err, errStop) {
					return nil
				}
				if err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// walkFlat visits the rollout files of one folder newest first. It returns errStop when
// visit asked to stop (walkDated passes that on; List's callers see nil).
func walkFlat(dir, after string, visit func(string) (bool, error)) error {
	names, err := readDirNames(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	for _, n := range names {
		if !strings.HasPrefix(n, "rollout-") || !strings.HasSuffix(n, ".jsonl") {
			continue
		}
		if after != "" && n >= after {
			continue
		}
		stop, err := visit(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		if stop {
			return errStop
		}
	}
	return nil
}

// readDirNames lists a folder's entries sorted newest (largest) first.
func readDirNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	slices.Reverse(names)
	return names, nil
}

// nameDay is the YYYYMMDD of a rollout file name (rollout-YYYY-MM-DDThh-mm-ss-…).
func nameDay(name string) string {
	s := strings.TrimPrefix(name, "rollout-")
	if len(s) < 10 {
		return ""
	}
	return s[0:4] + s[5:7] + s[8:10]
}

// nameTime parses the creation time in a rollout file name (local time).
func nameTime(name string) (time.Time, bool) {
	s := strings.TrimPrefix(filepath.Base(name), "rollout-")
	if len(s) < 19 {
		return time.Time{}, false
	}
	t, err := time.ParseInLocation("2006-01-02T15-04-05", s[:19], time.Local)
	return t, err == nil
}

// ReadSummary reads the head of a rollout: the session_meta and the first user message
// (ok is false until there is one). UpdatedAt is left to the caller.
func ReadSummary(path string) (s ThreadSummary, ok bool, err error) {
	return readSummaryWith(path, nil)
}

// readSummaryWith reads through br when given (reset for this file), so a walk over
// thousands of heads does not allocate a buffer for each.
func readSummaryWith(path string, br *bufio.Reader) (ThreadSummary, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return ThreadSummary{}, false, err
	}
	defer f.Close()
	if br == nil {
		br = bufio.NewReaderSize(nil, 16<<10)
	}
	br.Reset(io.LimitReader(f, headMaxBytes))
	var s ThreadSummary
	haveMeta := false
	for i := 0; i < headMaxLines; i++ {
		raw, err := br.ReadBytes('\n')
		if len(raw) > 0 {
			if l, ok := parseLine(raw); ok {
				if !haveMeta && l.Type == TypeSessionMeta {
					var m metaHead // without the base instructions: a listing never shows them
					if json.Unmarshal(l.Payload, &m) == nil {
						haveMeta = true
						s = summaryFromMeta(SessionMeta{ID: m.ID, ForkedFromID: m.ForkedFromID, Timestamp: m.Timestamp, Cwd: m.Cwd,
							ModelProvider: m.ModelProvider, Source: m.Source, CLIVersion: m.CLIVersion, Git: m.Git, HistoryMode: m.HistoryMode, Originator: m.Originator}, path)
					}
				} else if haveMeta && l.Type == TypeTurnContext && s.Model == "" {
					if ts, ok := turnSettingsOf(l.Payload); ok {
						s.Model, s.ReasoningEffort = ts.Model, ts.Effort
					}
				} else if haveMeta {
					if text, ok := userText(l); ok {
						s.Preview = text
						return s, true, nil
					}
				}
			}
		}
		if err != nil {
			break
		}
	}
	return s, false, nil
}

// metaHead is the part of session_meta a listing needs.
type metaHead struct {
	ID            string          `json:"id"`
	ForkedFromID  string          `json:"forked_from_id"`
	Timestamp     string          `json:"timestamp"`
	Cwd           string          `json:"cwd"`
	CLIVersion    string          `json:"cli_version"`
	Source        json.RawMessage `json:"source"`
	ModelProvider string          `json:"model_provider"`
	Git           *GitInfo        `json:"git"`
	HistoryMode   string          `json:"history_mode"`
	Originator    string          `json:"originator"`
}

func summaryFromMeta(m SessionMeta, path string) ThreadSummary {
	s := ThreadSummary{
		ID:            m.ID,
		Path:          path,
		ForkedFromID:  m.ForkedFromID,
		Cwd:           m.Cwd,
		ModelProvider: m.ModelProvider,
		Source:        m.SourceString(),
		CLIVersion:    m.CLIVersion,
		Git:           m.Git,
		HistoryMode:   m.HistoryMode,
		Originator:    m.Originator,
	}
	if t, err := time.Parse(TimestampFormat, m.Timestamp); err == nil {
		s.CreatedAt = t
	} else if t, err := time.Parse(time.RFC3339Nano, m.Timestamp); err == nil {
		s.CreatedAt = t
	} else if t, ok := nameTime(path); ok {
		s.CreatedAt = t
	}
	return s
}

// userText returns the text of a line that is the user's own message: a user_message
// event, a UserMessage item (Codex 0.169), or a user response item that is not context.
func userText(l Line) (string, bool) {
	switch l.Type {
	case TypeEventMsg:
		// The tag comes first in what Codex and we write; "" (another order) decodes fully.
		if t := peekType(l.Payload); t != "" && t != "user_message" && t != "item_completed" {
			return "", false
		}
		var head struct {
			Type    string `json:"type"`
			Message string `json:"message"`
			Item    struct {
				Type    string `json:"type"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"item"`
		}
		if json.Unmarshal(l.Payload, &head) != nil {
			return "", false
		}
		switch {
		case head.Type == "user_message":
			return head.Message, true
		case head.Type == "item_completed" && head.Item.Type == "UserMessage":
			var parts []string
			for _, c := range head.Item.Content {
				parts = append(parts, c.Text)
			}
			return strings.Join(parts, ""), true
		}
	case TypeResponseItem:
		if t := peekType(l.Payload); t != "" && t != "message" {
			return "", false
		}
		it, err := decodeItem(l.Payload)
		if err != nil || !IsUserTurnStart(it) {
			return "", false
		}
		var parts []string
		for _, c := range it.(protocol.MessageItem).Content {
			if c.Type == protocol.ContentInputText {
				parts = append(parts, c.Text)
			}
		}
		return strings.Join(parts, ""), true
	}
	return "", false
}
