// Package writejournal remembers where and when gocodex sessions could write, so that a
// project file written then can be told from one the person wrote: a session's model can
// create `.codex/rules/x.rules` (or `sub/.git`) in a nested folder that the sandbox does not
// protect, and a later session must not load it as the project's configuration.
//
// A session opens a window when it starts (Begin), naming the folders it may write and
// whether its project was trusted, and closes it when it ends (End). The journal is one
// append-only JSON Lines file in CODEX_HOME. A file changed inside a window (its change time,
// which no unprivileged program can set back, falls between the window's start and end) and
// under one of the window's folders was possibly written by that session.
//
// A window whose process died without closing it is closed by the next reader, at the time
// it reads: what changed in between counts as written by that session, which errs on the
// safe side.
package writejournal

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// FileName is the journal's name under CODEX_HOME.
const FileName = "gocodex_write_windows.jsonl"

// early widens every window at its start: the kernel stamps change times from a coarse clock
// that can lag the one Begin reads by a tick (10 ms at most). (At the end no widening is
// needed: what the session wrote was stamped no later than End read the clock.)
const early = 100 * time.Millisecond

// Journal is the write journal of one CODEX_HOME.
type Journal struct {
	path string
	now  func() time.Time
	pid  int

	mu         sync.Mutex
	cached     []window
	cachedSize int64
	cachedTime time.Time
}

// Open returns the journal under codexHome; nothing is read or written until it is used.
func Open(codexHome string) *Journal {
	return &Journal{path: filepath.Join(codexHome, FileName), now: time.Now, pid: os.Getpid()}
}

// Path is the journal file.
func (j *Journal) Path() string { return j.path }

// record is one line of the journal: a window's beginning or its end.
type record struct {
	Begin   string    `json:"begin,omitempty"`
	End     string    `json:"end,omitempty"`
	At      time.Time `json:"at"`
	PID     int       `json:"pid,omitempty"`
	Trusted bool      `json:"trusted,omitempty"`
	Roots   []string  `json:"roots,omitempty"`
}

// Window is an open window of the running process.
type Window struct {
	j  *Journal
	id string
}

// Begin opens a window over roots (the folders the session may write: made absolute, their
// symbolic links resolved where they exist). trusted says whether the session's project was
// trusted.
func (j *Journal) Begin(roots []string, trusted bool) (*Window, error) {
	var idb [8]byte
	if _, err := rand.Read(idb[:]); err != nil {
		return nil, err
	}
	w := &Window{j: j, id: hex.EncodeToString(idb[:])}
	canon := make([]string, 0, len(roots))
	for _, r := range roots {
		canon = append(canon, canonical(r))
	}
	rec := record{Begin: w.id, At: j.now(), PID: j.pid, Trusted: trusted, Roots: canon}
	if err := j.append(rec); err != nil {
		return nil, err
	}
	return w, nil
}

// End closes the window.
func (w *Window) End() error {
	return w.j.append(record{End: w.id, At: w.j.now()})
}

func (j *Journal) append(recs ...record) error {
	if err := os.MkdirAll(filepath.Dir(j.path), 0o700); err != nil {
		return fmt.Errorf("write journal: %w", err)
	}
	f, err := os.OpenFile(j.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("write journal: %w", err)
	}
	var b strings.Builder
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			f.Close()
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	// One write per call: appends from several processes do not interleave within it.
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write journal %s: %w", j.path, err)
	}
	return nil
}

// Span is one window as read back.
type Span struct {
	From, To time.Time
	Trusted  bool
	Roots    []string
	// Open is set while the window's process still runs.
	Open bool
}

// Windows are the journal's windows at one reading.
type Windows struct {
	spans []Span
}

// Read reads every window. Open windows of processes that are gone are closed now (and the
// journal says so). A missing journal holds no windows; a line that is not a record (a
// write cut short) is skipped. The parsed journal is kept while the file is unchanged, so
// the checks of one session start read it once.
func (j *Journal) Read() (*Windows, error) {
	windows, err := j.parse()
	if err != nil {
		return nil, err
	}
	now := j.now()
	var closed []record
	w := &Windows{spans: make([]Span, 0, len(windows))}
	for _, o := range windows {
		s := o.span
		if s.Open {
			s.To = now
			if o.pid != j.pid && !processAlive(o.pid) {
				s.Open = false
				closed = append(closed, record{End: o.id, At: now})
			}
		}
		w.spans = append(w.spans, s)
	}
	if len(closed) > 0 {
		// Best effort: a reader that cannot write closes the same windows again next time.
		_ = j.append(closed...)
	}
	return w, nil
}

// window is one window as the journal's lines describe it.
type window struct {
	span Span
	pid  int
	id   string
}

// parse folds the journal's lines into windows, from the cache while the file's size and
// time are those it was parsed at.
func (j *Journal) parse() ([]window, error) {
	f, err := os.Open(j.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read write journal: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read write journal: %w", err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.cached != nil && fi.Size() == j.cachedSize && fi.ModTime().Equal(j.cachedTime) {
		return j.cached, nil
	}
	byID := map[string]int{}
	var out []window
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4<<20)
	for sc.Scan() {
		var r record
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		switch {
		case r.Begin != "":
			byID[r.Begin] = len(out)
			out = append(out, window{span: Span{From: r.At, Trusted: r.Trusted, Roots: r.Roots, Open: true}, pid: r.PID, id: r.Begin})
		case r.End != "":
			if i, ok := byID[r.End]; ok && out[i].span.Open {
				out[i].span.To, out[i].span.Open = r.At, false
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read write journal %s: %w", j.path, err)
	}
	j.cached, j.cachedSize, j.cachedTime = out, fi.Size(), fi.ModTime()
	return out, nil
}

// Change is a path found changed inside a window.
type Change struct {
	Path string
	At   time.Time
	Span Span
}

func (c Change) String() string {
	who := "a session of a project that was not trusted"
	if c.Span.Trusted {
		who = "a session"
	}
	return fmt.Sprintf("%s changed at %s, while %s could write there", c.Path, c.At.Format(time.RFC3339), who)
}

// Before returns the windows that began before t (those of sessions already running then).
func (w *Windows) Before(t time.Time) *Windows {
	out := &Windows{}
	for _, s := range w.spans {
		if s.From.Before(t) {
			out.spans = append(out.spans, s)
		}
	}
	return out
}

// ChangedIn reports whether path itself (not what a symbolic link points to) was last
// changed inside a window covering it; untrustedOnly looks only at windows of sessions
// whose project was not trusted. A path that does not exist has no change.
func (w *Windows) ChangedIn(path string, untrustedOnly bool) (Change, bool, error) {
	if w == nil || len(w.spans) == 0 {
		return Change{}, false, nil
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Change{}, false, nil
	}
	if err != nil {
		return Change{}, false, err
	}
	at := changeTime(fi)
	where := canonical(path)
	for _, s := range w.spans {
		if untrustedOnly && s.Trusted {
			continue
		}
		if at.Before(s.From.Add(-early)) || at.After(s.To) {
			continue
		}
		for _, r := range s.Roots {
			if within(where, r) {
				return Change{Path: path, At: at, Span: s}, true, nil
			}
		}
	}
	return Change{}, false, nil
}

// canonical is p absolute, with the symbolic links of its parent resolved (p itself is
// kept, so a link is judged as the link).
func canonical(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	p = filepath.Clean(p)
	dir, base := filepath.Split(p)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return filepath.Join(real, base)
	}
	return p
}

func within(p, root string) bool {
	if root == string(filepath.Separator) || p == root {
		return true
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}
