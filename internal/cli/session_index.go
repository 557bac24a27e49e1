package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// SessionIndexFile is where Codex 0.169 keeps thread names: one JSON line per rename,
// {"id","thread_name","updated_at"}, appended; the last line of an id is its current name.
const SessionIndexFile = "session_index.jsonl"

type sessionIndexLine struct {
	ID         string `json:"id"`
	ThreadName string `json:"thread_name"`
	UpdatedAt  string `json:"updated_at"`
}

// sessionName is a thread's current name and its position in the index (later is newer).
type sessionName struct {
	ID    string
	Name  string
	Order int
}

// readSessionNames returns each thread's current name, from CODEX_HOME/session_index.jsonl.
// A missing file is an empty index; lines that are not JSON are skipped (a torn last line).
func readSessionNames(codexHome string) (map[string]sessionName, error) {
	data, err := os.ReadFile(filepath.Join(codexHome, SessionIndexFile))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]sessionName{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", SessionIndexFile, err)
	}
	names := map[string]sessionName{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 0; sc.Scan(); n++ {
		var l sessionIndexLine
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.ID == "" {
			continue
		}
		names[l.ID] = sessionName{ID: l.ID, Name: l.ThreadName, Order: n}
	}
	return names, nil
}

// dropSessionNames rewrites the index without thread id's lines, as Codex does when it
// deletes a thread. The new file replaces the old one by rename, so a crash leaves either.
func dropSessionNames(codexHome, id string) error {
	path := filepath.Join(codexHome, SessionIndexFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var kept bytes.Buffer
	dropped := false
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		var l sessionIndexLine
		if json.Unmarshal(bytes.TrimSpace(line), &l) == nil && l.ID == id {
			dropped = true
			continue
		}
		kept.Write(line)
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
