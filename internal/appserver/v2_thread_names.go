package appserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/internal/filelock"
)

// Thread names (thread/name/set), kept where Codex 0.169 keeps them: CODEX_HOME's
// session_index.jsonl, one {"id","thread_name","updated_at"} line per rename, the last
// line of a thread winning, appended under an flock of session_index.jsonl.lock. Codex's
// own pickers and thread/list read the same file, so a name set through either shows in both.

const sessionIndexName = "session_index.jsonl"

type sessionIndexLine struct {
	ID         string `json:"id"`
	ThreadName string `json:"thread_name"`
	UpdatedAt  string `json:"updated_at"`
}

func sessionIndexPath(codexHome string) string { return filepath.Join(codexHome, sessionIndexName) }

// appendThreadName records a rename.
func appendThreadName(codexHome, id, name string) error {
	path := sessionIndexPath(codexHome)
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		return err
	}
	unlock, err := filelock.Exclusive(path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	line, err := json.Marshal(sessionIndexLine{ID: id, ThreadName: name, UpdatedAt: time.Now().UTC().Format(time.RFC3339Nano)})
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// threadNames reads the index: each thread's latest name. A missing file is no names; a
// line that does not parse (a torn last line) is skipped.
func threadNames(codexHome string) map[string]string {
	b, err := os.ReadFile(sessionIndexPath(codexHome))
	if err != nil {
		return nil
	}
	names := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var l sessionIndexLine
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.ID != "" {
			names[l.ID] = l.ThreadName
		}
	}
	return names
}

type setNameParams struct {
	ThreadID string `json:"threadId"`
	Name     string `json:"name"`
}

// setName renames a thread, loaded or not, as Codex 0.169 does; every subscriber of a
// loaded thread (the caller otherwise) hears thread/name/updated.
func (r *threads) setName(ctx context.Context, c *Conn, p setNameParams) (empty, error) {
	if p.Name == "" {
		return empty{}, InvalidRequest("thread name must not be empty")
	}
	if _, err := uuid.Parse(p.ThreadID); err != nil {
		return empty{}, InvalidRequest("invalid thread id: " + uuidError(p.ThreadID))
	}
	lt, loaded := r.get(p.ThreadID)
	if !loaded {
		if _, _, err := findRollout(codexHome(r.srv), p.ThreadID); err != nil {
			return empty{}, errNoRollout(p.ThreadID)
		}
	}
	if err := appendThreadName(codexHome(r.srv), p.ThreadID, p.Name); err != nil {
		return empty{}, internalError("record thread name: " + err.Error())
	}
	r.codexStateNamed(p.ThreadID, p.Name)
	if loaded {
		lt.mu.Lock()
		lt.info.Name = p.Name
		lt.mu.Unlock()
	}
	r.notifyThread(ctx, c, p.ThreadID, "thread/name/updated", struct {
		ThreadID   string `json:"threadId"`
		ThreadName string `json:"threadName"`
	}{p.ThreadID, p.Name})
	return empty{}, nil
}

// nameOf is a thread's name: a loaded thread's own, else the latest in the index ("" when
// it has none).
func (r *threads) nameOf(id string) string {
	if lt, ok := r.get(id); ok {
		lt.mu.Lock()
		name := lt.info.Name
		lt.mu.Unlock()
		if name != "" {
			return name
		}
	}
	return threadNames(codexHome(r.srv))[id]
}
