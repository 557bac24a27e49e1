package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// changedPathsOf waits for the next fs/changed of watch id and returns its paths.
func changedPathsOf(t *testing.T, c *asClient, id string) []string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		for _, m := range waitNotes(c, "fs/changed", time.Until(deadline)) {
			var p fsChangedParams
			if m.Method == "fs/changed" && json.Unmarshal(m.Params, &p) == nil && p.WatchID == id {
				return p.ChangedPaths
			}
		}
	}
	t.Fatalf("no fs/changed for %s", id)
	return nil
}

type fsChangedParams struct {
	ChangedPaths []string `json:"changedPaths"`
	WatchID      string   `json:"watchId"`
}

// A watched path that does not exist yet is reported when it appears; a watched file that
// an editor replaces (write elsewhere, rename over it) keeps being watched; after fs/unwatch
// nothing more is sent.
func TestFSWatchFollowsAppearingAndReplacedFiles(t *testing.T) {
	e := newEnv(t)
	c, _ := e.startAppServer()
	missing := filepath.Join(e.Workdir, "later.txt")
	c.mustCall("fs/watch", map[string]any{"path": missing, "watchId": "later"}, nil)
	writeFile(t, missing, "now\n")
	if got := changedPathsOf(t, c, "later"); len(got) != 1 || got[0] != missing {
		t.Fatalf("appearing file: %v", got)
	}

	file := filepath.Join(e.Workdir, "doc.txt")
	writeFile(t, file, "one\n")
	c.mustCall("fs/watch", map[string]any{"path": file, "watchId": "doc"}, nil)
	tmp := filepath.Join(e.Workdir, ".doc.txt.swp")
	writeFile(t, tmp, "two\n")
	if err := os.Rename(tmp, file); err != nil {
		t.Fatal(err)
	}
	if got := changedPathsOf(t, c, "doc"); len(got) == 0 || got[0] != file {
		t.Fatalf("replaced file: %v", got)
	}
	// The replacement is watched in turn (the watch follows the path, not the old file).
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; ; i++ {
		writeFile(t, file, "three "+itoa(i)+"\n")
		got := waitNotes(c, "fs/changed", 500*time.Millisecond)
		if len(got) > 0 && got[len(got)-1].Method == "fs/changed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the replaced file is no longer watched")
		}
	}
	c.mustCall("fs/unwatch", map[string]any{"watchId": "doc"}, nil)
	c.mustCall("fs/unwatch", map[string]any{"watchId": "later"}, nil)
}
