package readstate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two processes' logs over one CODEX_HOME see each other's changes; a log past its size
// limit is rewritten with one line per thread and reads the same.
func TestReadStateLogSharedAndCompacted(t *testing.T) {
	home := t.TempDir()
	a, b := newLog(home), newLog(home)
	set := func(l *stateLog, id, rev string) {
		t.Helper()
		if _, err := l.update(id, func(ReadState, bool) (ReadState, error) { return ReadState{Revision: rev}, nil }); err != nil {
			t.Fatal(err)
		}
	}
	set(a, "t1", "r1")
	set(b, "t2", "r2")
	set(a, "t1", "r3")
	for _, l := range []*stateLog{a, b} {
		if rs, ok, _ := l.get("t1"); !ok || rs.Revision != "r3" {
			t.Errorf("t1 = %+v %v", rs, ok)
		}
		if rs, ok, _ := l.get("t2"); !ok || rs.Revision != "r2" {
			t.Errorf("t2 = %+v %v", rs, ok)
		}
	}
	saved := logCompactAt
	logCompactAt = 1
	defer func() { logCompactAt = saved }()
	set(b, "t2", "r4") // past the limit: compacted
	data, err := os.ReadFile(filepath.Join(home, LogName))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n != 2 {
		t.Errorf("%d lines after compaction, want 2:\n%s", n, data)
	}
	if rs, _, _ := a.get("t2"); rs.Revision != "r4" {
		t.Errorf("the other log after compaction: t2 = %+v", rs)
	}
	if rs, _, _ := a.get("t1"); rs.Revision != "r3" {
		t.Errorf("the other log after compaction: t1 = %+v", rs)
	}
}
