// Package sessionindex reads and writes CODEX_HOME/session_index.jsonl, where Codex 0.169
// keeps thread names: one {"id","thread_name","updated_at"} line per rename, appended, the
// last line of a thread winning. Codex's pickers and thread/list read the same file, so a
// name set through either program shows in both. Every write holds an flock of
// session_index.jsonl.lock, so a rename and a delete in two processes never lose a line.
package sessionindex

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gocodex/gocodex/internal/filelock"
)

// FileName is the index in CODEX_HOME.
const FileName = "session_index.jsonl"

type line struct {
	ID         string `json:"id"`
	ThreadName string `json:"thread_name"`
	UpdatedAt  string `json:"updated_at"`
}

// Name is a thread's current name and the position of its latest line (later is newer).
type Name struct {
	ID    string
	Name  string
	Order int
}

// Path is the index of codexHome.
func Path(codexHome string) string { return filepath.Join(codexHome, FileName) }

// Read returns each thread's current name. A missing file is an empty index; a line that
// does not parse (a torn last line) is skipped.
func Read(codexHome string) (map[string]Name, error) {
	data, err := os.ReadFile(Path(codexHome))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]Name{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", FileName, err)
	}
	names := map[string]Name{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 0; sc.Scan(); n++ {
		var l line
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.ID == "" {
			continue
		}
		names[l.ID] = Name{ID: l.ID, Name: l.ThreadName, Order: n}
	}
	return names, nil
}

// Names is Read reduced to each thread's name; an unreadable index is no names.
func Names(codexHome string) map[string]string {
	read, err := Read(codexHome)
	if err != nil {
		return nil
	}
	out := make(map[string]string, len(read))
	for id, n := range read {
		out[id] = n.Name
	}
	return out
}

// Append records a rename.
func Append(codexHome, id, name string) error {
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		return err
	}
	path := Path(codexHome)
	unlock, err := filelock.Exclusive(path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	b, err := json.Marshal(line{ID: id, ThreadName: name, UpdatedAt: time.Now().UTC().Format(time.RFC3339Nano)})
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Drop rewrites the index without thread id's lines, as Codex does when it deletes a
// thread. The new file replaces the old one by rename, so a crash leaves either.
func Drop(codexHome, id string) error {
	path := Path(codexHome)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	unlock, err := filelock.Exclusive(path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var kept bytes.Buffer
	dropped := false
	for _, raw := range bytes.SplitAfter(data, []byte("\n")) {
		var l line
		if json.Unmarshal(bytes.TrimSpace(raw), &l) == nil && l.ID == id {
			dropped = true
			continue
		}
		kept.Write(raw)
	}
	if !dropped {
		return nil
	}
	tmp, err := os.CreateTemp(codexHome, ".session_index-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(kept.Bytes()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
