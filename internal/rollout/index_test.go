package rollout

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/protocol"
)

func indexFiles(t *testing.T, home string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == IndexFileName {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// listAll pages through a listing.
func listAll(t *testing.T, home string, opts ListOptions) []ThreadSummary {
	t.Helper()
	var out []ThreadSummary
	for {
		p, err := List(home, opts)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Threads...)
		if p.NextCursor == "" {
			return out
		}
		opts.Cursor = p.NextCursor
	}
}

func TestIndexCachesHeadsAndStaysCorrect(t *testing.T) {
	f := newFixture(t, 100) // four days of folders
	// One page over all of them: past the direct reads, the walk fills the caches.
	first := listAll(t, f.home, ListOptions{Cwd: "/b", PageSize: 100})
	if len(first) != 50 {
		t.Fatalf("%d threads in /b", len(first))
	}
	if n := len(indexFiles(t, f.home)); n == 0 {
		t.Fatal("a filtered walk past the direct reads left no cache")
	}
	// Served from the caches, the same answer.
	again := listAll(t, f.home, ListOptions{Cwd: "/b", PageSize: 100})
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("cached listing differs (-first +again):\n%s", diff)
	}

	// A new thread in a cached folder is found; an archived one disappears.
	oldest := f.ids[len(f.ids)-1]
	p, _, _ := Find(f.home, oldest)
	at, _ := nameTime(p)
	newID := v7At(at.Add(time.Second), 5000)
	writeThread(t, f.home, at.Add(time.Second), newID, "/b", "mock", "late arrival")
	if _, err := Archive(f.home, f.ids[99]); err != nil { // in /b
		t.Fatal(err)
	}
	got := listAll(t, f.home, ListOptions{Cwd: "/b", PageSize: 100})
	ids := map[string]bool{}
	for _, s := range got {
		ids[s.ID] = true
	}
	if !ids[newID] || ids[f.ids[99]] || len(got) != 50 {
		t.Errorf("after a new thread and an archive: %d threads, new %v, archived %v", len(got), ids[newID], ids[f.ids[99]])
	}

	// A damaged cache is ignored and rewritten.
	for _, ix := range indexFiles(t, f.home) {
		os.WriteFile(ix, []byte("{not json"), 0o600)
	}
	if diff := cmp.Diff(got, listAll(t, f.home, ListOptions{Cwd: "/b", PageSize: 100})); diff != "" {
		t.Errorf("with damaged caches (-before +after):\n%s", diff)
	}
}

// TestIndexDoesNotCacheUnstartedThreads: a thread without a user message yet is read again
// next time, so it appears once its first turn is recorded.
func TestIndexDoesNotCacheUnstartedThreads(t *testing.T) {
	f := newFixture(t, 80)
	at := time.Date(2026, 3, 2, 12, 30, 0, 0, time.Local) // the newest folder
	meta := testMeta()
	meta.ID, meta.Cwd = v7At(at, 9000), "/c"
	r, err := Create(f.home, Options{Meta: meta, Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	r.RecordEvent(protocol.Event{Msg: protocol.TurnStartedEvent{TurnID: "t"}})
	r.Flush()
	// Push it past the direct reads: list with a filter nothing passes, twice.
	for i := 0; i < 2; i++ {
		if got := listAll(t, f.home, ListOptions{Cwd: "/c"}); len(got) != 0 {
			t.Fatalf("listed an unstarted thread: %v", got)
		}
	}
	r.RecordItems([]protocol.ResponseItem{userMsg("now it starts")})
	r.Close()
	got := listAll(t, f.home, ListOptions{Cwd: "/c"})
	if len(got) != 1 || got[0].Preview != "now it starts" {
		t.Errorf("after its first message: %+v", got)
	}
}

func TestIndexReadOnlyFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes to read-only folders")
	}
	f := newFixture(t, 70)
	filepath.WalkDir(filepath.Join(f.home, SessionsDir), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o500)
			t.Cleanup(func() { os.Chmod(p, 0o700) })
		}
		return nil
	})
	if got := listAll(t, f.home, ListOptions{Cwd: "/a"}); len(got) != 35 {
		t.Errorf("%d threads in /a", len(got))
	}
}
