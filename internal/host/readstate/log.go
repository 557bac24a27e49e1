package readstate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/gocodex/gocodex/internal/filelock"
	"github.com/gocodex/gocodex/internal/host/ext"
)

// LogName keeps the threads' read states: they change with every completed turn of
// every thread, so they are not rewritten with the thread state file but appended, one
// {"id","readState"} line per change, the last line of a thread winning. The log is
// rewritten (atomically) with one line per thread once it passes logCompactAt.
const LogName = "gocodex_read_state.jsonl"

var logCompactAt int64 = 4 << 20 // a variable for the tests

type logLine struct {
	ID        string    `json:"id"`
	ReadState ReadState `json:"readState"`
}

// stateLog is the log and what this process has read of it: it reads only what other
// processes appended since, and all of it again after a compaction.
type stateLog struct {
	path string

	mu     sync.Mutex
	states map[string]ReadState
	offset int64       // bytes of the file applied to states
	file   os.FileInfo // the file they come from: a compaction replaces it
}

func newLog(codexHome string) *stateLog {
	return &stateLog{path: filepath.Join(codexHome, LogName)}
}

// catchUpLocked applies what the file holds past offset. l.mu is held.
func (l *stateLog) catchUpLocked() error {
	f, err := os.Open(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		l.states, l.offset = map[string]ReadState{}, 0
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if l.states == nil || l.file == nil || !os.SameFile(st, l.file) || st.Size() < l.offset {
		l.states, l.offset = map[string]ReadState{}, 0 // first read, or compacted since
	}
	l.file = st
	if st.Size() == l.offset {
		return nil
	}
	if _, err := f.Seek(l.offset, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			break // EOF, or a line still being written: read again next time
		}
		l.offset += int64(len(line))
		var rl logLine
		if json.Unmarshal(bytes.TrimSpace(line), &rl) == nil && rl.ID != "" {
			l.states[rl.ID] = rl.ReadState
		}
	}
	return nil
}

// get is a thread's logged read state.
func (l *stateLog) get(id string) (ReadState, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.catchUpLocked(); err != nil {
		return ReadState{}, false, err
	}
	rs, ok := l.states[id]
	return rs, ok, nil
}

// update lets f change a thread's read state (ok: it has one) under the log's flock and
// appends the result; f returning an error changes nothing.
func (l *stateLog) update(id string, f func(cur ReadState, ok bool) (ReadState, error)) (ReadState, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return ReadState{}, err
	}
	unlock, err := filelock.Exclusive(l.path + ".lock")
	if err != nil {
		return ReadState{}, err
	}
	defer unlock()
	if err := l.catchUpLocked(); err != nil {
		return ReadState{}, err
	}
	cur, ok := l.states[id]
	next, err := f(cur, ok)
	if err != nil {
		return ReadState{}, err
	}
	line, err := json.Marshal(logLine{ID: id, ReadState: next})
	if err != nil {
		return ReadState{}, err
	}
	file, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return ReadState{}, err
	}
	_, err = file.Write(append(line, '\n'))
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return ReadState{}, err
	}
	if err := l.catchUpLocked(); err != nil {
		return ReadState{}, err
	}
	if l.offset > logCompactAt {
		l.compactLocked()
	}
	return next, nil
}

// compactLocked rewrites the log with one line per thread; a failure leaves the log as it
// was. l.mu and the flock are held.
func (l *stateLog) compactLocked() {
	var b bytes.Buffer
	for id, rs := range l.states {
		line, _ := json.Marshal(logLine{ID: id, ReadState: rs})
		b.Write(append(line, '\n'))
	}
	if ext.WriteFileAtomic(l.path, b.Bytes()) == nil {
		l.offset = int64(b.Len())
		l.file, _ = os.Stat(l.path)
	}
}
