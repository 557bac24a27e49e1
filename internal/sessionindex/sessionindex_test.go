package sessionindex

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAppendReadDrop(t *testing.T) {
	home := t.TempDir()
	if names, err := Read(home); err != nil || len(names) != 0 {
		t.Fatalf("Read of a home without an index = %v, %v", names, err)
	}
	for _, r := range [][2]string{{"a", "first"}, {"b", "other"}, {"a", "renamed"}} {
		if err := Append(home, r[0], r[1]); err != nil {
			t.Fatal(err)
		}
	}
	// A torn last line (a crash in the middle of a write) is skipped.
	f, err := os.OpenFile(Path(home), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"c","thread_na`)
	f.Close()
	if diff := cmp.Diff(map[string]string{"a": "renamed", "b": "other"}, Names(home)); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	read, _ := Read(home)
	if read["a"].Order != 2 || read["b"].Order != 1 {
		t.Errorf("orders: %+v", read)
	}

	if err := Drop(home, "a"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(Path(home))
	if strings.Contains(string(data), `"id":"a"`) || !strings.Contains(string(data), `"id":"b"`) {
		t.Errorf("after Drop(a) the index is:\n%s", data)
	}
	if st, _ := os.Stat(Path(home)); st.Mode().Perm() != 0o600 {
		t.Errorf("index mode %v, want 0600", st.Mode().Perm())
	}
	if tmps, _ := filepath.Glob(filepath.Join(home, ".session_index-*")); len(tmps) != 0 {
		t.Errorf("left behind: %v", tmps)
	}
}

// Renames and a delete at the same time (two processes share the flock) lose no line.
func TestConcurrentAppendAndDropLoseNothing(t *testing.T) {
	home := t.TempDir()
	if err := Append(home, "gone", "x"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := Append(home, string(rune('a'+i)), "name"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := Drop(home, "gone"); err != nil {
			t.Error(err)
		}
	}()
	wg.Wait()
	names := Names(home)
	if len(names) != 20 || names["gone"] != "" {
		t.Errorf("after 20 renames and a delete: %d names %v", len(names), names)
	}
}
