package rollout

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
)

// ErrNotFound means no rollout has the thread id.
var ErrNotFound = errors.New("no rollout found")

// Find returns the rollout file of thread id and whether it is archived. Thread ids are
// UUIDv7, whose first 48 bits are the creation time in milliseconds, so the date folder is
// tried first (and the days around it, for time zones and midnight); a full walk is the
// fallback for ids of another kind.
func Find(codexHome, id string) (path string, archived bool, err error) {
	if !validID(id) {
		return "", false, fmt.Errorf("%w for thread id %q", ErrNotFound, id)
	}
	suffix := "-" + id + ".jsonl"
	sessions := filepath.Join(codexHome, SessionsDir)
	if u, err := uuid.Parse(id); err == nil && u.Version() == 7 {
		sec, nsec := u.Time().UnixTime()
		t := time.Unix(sec, nsec)
		for _, d := range []int{0, -1, 1} {
			day := t.AddDate(0, 0, d)
			dir := filepath.Join(sessions, day.Format("2006"), day.Format("01"), day.Format("02"))
			if p := findIn(dir, suffix); p != "" {
				return p, false, nil
			}
		}
	}
	var found string
	_ = walkDated(sessions, "", func(p string) (bool, error) {
		if strings.HasSuffix(p, suffix) {
			found = p
			return true, nil
		}
		return false, nil
	})
	if found != "" {
		return found, false, nil
	}
	if p := findIn(filepath.Join(codexHome, ArchivedDir), suffix); p != "" {
		return p, true, nil
	}
	return "", false, fmt.Errorf("%w for thread id %s", ErrNotFound, id)
}

// validID accepts thread ids as Codex and we make them (UUIDs; letters, digits, '-', '_'),
// which also keeps path separators and glob patterns out of the lookups.
func validID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func findIn(dir, suffix string) string {
	matches, _ := filepath.Glob(filepath.Join(dir, "rollout-*"+suffix))
	if len(matches) == 0 {
		return ""
	}
	return matches[len(matches)-1]
}

// Archive moves thread id's rollout to CODEX_HOME/archived_sessions and returns the new path.
func Archive(codexHome, id string) (string, error) {
	path, archived, err := Find(codexHome, id)
	if err != nil {
		return "", err
	}
	if archived {
		return path, nil
	}
	dst := filepath.Join(codexHome, ArchivedDir, filepath.Base(path))
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return "", fmt.Errorf("archive %s: %w", id, err)
	}
	if err := os.Rename(path, dst); err != nil {
		return "", fmt.Errorf("archive %s: %w", id, err)
	}
	return dst, nil
}

// Unarchive moves an archived rollout back to its date folder under sessions.
func Unarchive(codexHome, id string) (string, error) {
	path, archived, err := Find(codexHome, id)
	if err != nil {
		return "", err
	}
	if !archived {
		return path, nil
	}
	t, ok := nameTime(path)
	if !ok {
		t = time.Now()
	}
	dst := filepath.Join(codexHome, SessionsDir, t.Format("2006"), t.Format("01"), t.Format("02"), filepath.Base(path))
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return "", fmt.Errorf("unarchive %s: %w", id, err)
	}
	if err := os.Rename(path, dst); err != nil {
		return "", fmt.Errorf("unarchive %s: %w", id, err)
	}
	return dst, nil
}

// Latest is the most recently updated thread matching opts (exec resume --last): like
// Codex, a thread resumed yesterday comes before one started this morning and not touched
// since.
func Latest(codexHome string, opts ListOptions) (ThreadSummary, error) {
	opts.PageSize, opts.Cursor, opts.ByUpdated, opts.Ascending = 1, "", true, false
	page, err := List(codexHome, opts)
	if err != nil {
		return ThreadSummary{}, err
	}
	if len(page.Threads) == 0 {
		return ThreadSummary{}, ErrNotFound
	}
	return page.Threads[0], nil
}
