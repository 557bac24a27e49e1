// Package history is the cross-session message history, CODEX_HOME/history.jsonl: one line
// `{"session_id","ts","text"}` per message the user sent, shared by every process. Appends
// are single writes under an exclusive flock so concurrent processes never interleave lines;
// the file's inode is the log id clients use to ask for entries, so trimming rewrites the
// file in place rather than replacing it.
package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gocodex/gocodex/internal/filelock"
	"github.com/gocodex/gocodex/protocol"
)

// FileName is the history file in CODEX_HOME.
const FileName = "history.jsonl"

// Lock retries: a few short waits, as Codex does, rather than blocking forever on a stuck
// process.
const (
	lockRetries = 10
	lockWait    = 100 * time.Millisecond
)

// Options configure a History.
type Options struct {
	CodexHome string
	// Persistence "none" turns appends off (lookups still read the file).
	Persistence string
	// MaxBytes, when positive, caps the file: past it, the oldest lines are dropped until
	// the file is at most 80% of MaxBytes.
	MaxBytes int64
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Sleep waits between lock attempts; nil means time.Sleep.
	Sleep func(time.Duration)
}

// History is history.jsonl. It implements agent.MessageHistory.
type History struct {
	path  string
	opts  Options
	now   func() time.Time
	sleep func(time.Duration)
}

// Entry is one line of the file.
type Entry struct {
	SessionID string `json:"session_id"`
	TS        uint64 `json:"ts"`
	Text      string `json:"text"`
}

// New returns the history of opts.CodexHome; nothing is touched until the first append.
func New(opts Options) *History {
	h := &History{path: filepath.Join(opts.CodexHome, FileName), opts: opts, now: opts.Now, sleep: opts.Sleep}
	if h.now == nil {
		h.now = time.Now
	}
	if h.sleep == nil {
		h.sleep = time.Sleep
	}
	return h
}

// Path is the file.
func (h *History) Path() string { return h.path }

// Append adds one message. With persistence "none" it does nothing.
func (h *History) Append(sessionID, text string) error {
	if h.opts.Persistence == "none" {
		return nil
	}
	line, err := json.Marshal(Entry{SessionID: sessionID, TS: uint64(h.now().Unix()), Text: text})
	if err != nil {
		return err
	}
	line = append(line, '\n')
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	f, err := os.OpenFile(h.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	// A file created by an older version with looser permissions is tightened.
	if st, err := f.Stat(); err == nil && st.Mode().Perm() != 0o600 {
		_ = f.Chmod(0o600)
	}
	if err := h.lock(f, filelock.ModeExclusive); err != nil {
		return err
	}
	defer filelock.Unlock(f)
	if _, err := f.Write(line); err != nil {
		return fmt.Errorf("history: write: %w", err)
	}
	if h.opts.MaxBytes > 0 {
		if err := trim(h.path, h.opts.MaxBytes); err != nil {
			return fmt.Errorf("history: trim: %w", err)
		}
	}
	return nil
}

// lock takes a file lock, retrying a few times while another process holds it.
func (h *History) lock(f *os.File, mode filelock.Mode) error {
	for i := 0; ; i++ {
		err := filelock.TryLock(f, mode)
		if err == nil {
			return nil
		}
		if !errors.Is(err, filelock.ErrBusy) || i == lockRetries-1 {
			return fmt.Errorf("history: lock %s: %w", h.path, err)
		}
		h.sleep(lockWait)
	}
}

// trim drops the oldest whole lines once the file is over max, down to 80% of max, in place
// (same inode) while the caller holds the lock. It writes through a descriptor of its own:
// positioned writes do not work on the O_APPEND one.
func trim(path string, max int64) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() <= max {
		return nil
	}
	data, err := io.ReadAll(io.NewSectionReader(f, 0, st.Size()))
	if err != nil {
		return err
	}
	target := max * 8 / 10
	drop := int64(len(data)) - target
	start := 0
	for int64(start) < drop {
		i := bytes.IndexByte(data[start:], '\n')
		if i < 0 {
			start = len(data)
			break
		}
		start += i + 1
	}
	keep := data[start:]
	if _, err := f.WriteAt(keep, 0); err != nil {
		return err
	}
	return f.Truncate(int64(len(keep)))
}

// Metadata returns the log id (the file's inode) and the number of entries, for
// session_configured; a missing file is (0, 0).
func (h *History) Metadata() (logID uint64, count int, err error) {
	f, err := os.Open(h.path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	logID, err = inode(f)
	if err != nil {
		return 0, 0, err
	}
	buf := make([]byte, 64<<10)
	for {
		n, err := f.Read(buf)
		count += bytes.Count(buf[:n], []byte{'\n'})
		if err == io.EOF {
			return logID, count, nil
		}
		if err != nil {
			return 0, 0, err
		}
	}
}

// Lookup returns entry number offset (0-based) of the log logID; a log id that is not the
// current file's inode (the file was replaced) finds nothing.
func (h *History) Lookup(logID uint64, offset int) (*protocol.HistoryEntry, bool) {
	if offset < 0 {
		return nil, false
	}
	f, err := os.Open(h.path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if id, err := inode(f); err != nil || id != logID {
		return nil, false
	}
	if err := h.lock(f, filelock.ModeShared); err != nil {
		return nil, false
	}
	defer filelock.Unlock(f)
	br := bufio.NewReader(f)
	for i := 0; ; i++ {
		line, err := br.ReadBytes('\n')
		if i == offset && len(line) > 0 {
			var e Entry
			if json.Unmarshal(line, &e) != nil {
				return nil, false
			}
			return &protocol.HistoryEntry{ConversationID: e.SessionID, Ts: e.TS, Text: e.Text}, true
		}
		if err != nil {
			return nil, false
		}
	}
}

// inode is the file's log id: its inode on Unix, its creation time on Windows (as Codex).
func inode(f *os.File) (uint64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	id, ok := fileID(st)
	if !ok {
		return 0, errors.New("history: no file id on this platform")
	}
	return id, nil
}
