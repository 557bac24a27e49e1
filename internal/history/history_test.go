package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/filelock"
	"github.com/gocodex/gocodex/protocol"
)

func fixedNow() time.Time { return time.Unix(1795336736, 0) }

func TestAppendAndLookup(t *testing.T) {
	home := t.TempDir()
	h := New(Options{CodexHome: home, Now: fixedNow})
	if id, n, err := h.Metadata(); id != 0 || n != 0 || err != nil {
		t.Fatalf("metadata before any append = %d, %d, %v", id, n, err)
	}
	for _, text := range []string{"first", "second \"quoted\"\nline"} {
		if err := h.Append("thread-1", text); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join(home, FileName))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"session_id":"thread-1","ts":1795336736,"text":"first"}` + "\n" +
		`{"session_id":"thread-1","ts":1795336736,"text":"second \"quoted\"\nline"}` + "\n"
	if diff := cmp.Diff(want, string(data)); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
	st, _ := os.Stat(h.Path())
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", st.Mode().Perm())
	}
	logID, n, err := h.Metadata()
	if id, _ := fileID(st); err != nil || n != 2 || logID != id {
		t.Errorf("metadata = %d, %d, %v (file id %d)", logID, n, err, id)
	}
	got, ok := h.Lookup(logID, 1)
	if !ok || !cmp.Equal(*got, protocol.HistoryEntry{ConversationID: "thread-1", Ts: 1795336736, Text: "second \"quoted\"\nline"}) {
		t.Errorf("lookup 1 = %+v, %v", got, ok)
	}
	for _, tc := range []struct {
		logID  uint64
		offset int
	}{{logID, 2}, {logID, -1}, {logID + 1, 0}} {
		if e, ok := h.Lookup(tc.logID, tc.offset); ok {
			t.Errorf("lookup(%d, %d) = %+v", tc.logID, tc.offset, e)
		}
	}
}

func TestPersistenceNone(t *testing.T) {
	home := t.TempDir()
	h := New(Options{CodexHome: home, Persistence: "none"})
	if err := h.Append("t", "secret plans"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, FileName)); !os.IsNotExist(err) {
		t.Errorf("history.jsonl written with persistence none: %v", err)
	}
}

func TestTrimToEightyPercentInPlace(t *testing.T) {
	home := t.TempDir()
	h := New(Options{CodexHome: home, MaxBytes: 1000, Now: fixedNow})
	for i := 0; i < 40; i++ {
		if err := h.Append("t", fmt.Sprintf("message %02d", i)); err != nil {
			t.Fatal(err)
		}
	}
	st, _ := os.Stat(h.Path())
	if st.Size() > 1000 {
		t.Errorf("size %d over max_bytes", st.Size())
	}
	data, _ := os.ReadFile(h.Path())
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for _, l := range lines {
		var e Entry
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("broken line after trim: %q", l)
		}
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "message 39") {
		t.Errorf("newest message lost: %q", last)
	}
	// The trim that just happened left the file at most 80% of the cap plus what came after.
	logID, _, _ := h.Metadata()
	if id, _ := fileID(st); logID != id {
		t.Error("trimming replaced the file: the log id changed")
	}
	// One append over the cap trims to at most 800 bytes.
	h2 := New(Options{CodexHome: t.TempDir(), MaxBytes: 1000, Now: fixedNow})
	for i := 0; i < 17; i++ {
		h2.Append("t", fmt.Sprintf("message %02d", i)) // 52 bytes a line: 884 bytes
	}
	h2.Append("t", strings.Repeat("x", 200))
	if st, _ := os.Stat(h2.Path()); st.Size() > 800 {
		t.Errorf("after a trim the file is %d bytes, want at most 800", st.Size())
	}
}

// TestConcurrentAppends: appends from many writers (each its own open file, as separate
// processes have) never interleave.
func TestConcurrentAppends(t *testing.T) {
	home := t.TempDir()
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := New(Options{CodexHome: home})
			for i := 0; i < 50; i++ {
				if err := h.Append(fmt.Sprint("w", w), strings.Repeat(fmt.Sprint(w), 3000)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	data, _ := os.ReadFile(filepath.Join(home, FileName))
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) != 400 {
		t.Fatalf("%d lines, want 400", len(lines))
	}
	for _, l := range lines {
		var e Entry
		if err := json.Unmarshal(l, &e); err != nil || len(e.Text) != 3000 {
			t.Fatalf("interleaved line: %.80q", l)
		}
	}
}

// TestLockRetriesThenFails: a lock held elsewhere is waited for a bounded number of times.
func TestLockRetriesThenFails(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, FileName)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := filelock.Lock(f, filelock.ModeExclusive); err != nil {
		t.Fatal(err)
	}
	sleeps := 0
	h := New(Options{CodexHome: home, Sleep: func(time.Duration) { sleeps++ }})
	if err := h.Append("t", "x"); err == nil {
		t.Error("append succeeded while another holder had the lock")
	}
	if sleeps != lockRetries-1 {
		t.Errorf("waited %d times, want %d", sleeps, lockRetries-1)
	}
	filelock.Unlock(f)
	if err := h.Append("t", "x"); err != nil {
		t.Errorf("append after release: %v", err)
	}
}

func TestTightensLoosePermissions(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, FileName)
	os.WriteFile(path, nil, 0o644)
	if err := New(Options{CodexHome: home}).Append("t", "x"); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v", st.Mode().Perm())
	}
}
