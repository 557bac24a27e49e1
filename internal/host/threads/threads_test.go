package threads

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/rollout"
	"github.com/gocodex/gocodex/internal/sessionindex"
	"github.com/gocodex/gocodex/protocol"
)

// codexFork is the recorded conversation of e2e's TestForkOfForkKeepsHistory: Codex 0.169's
// `exec fork` of a thread ("alpha"), continued ("bravo", "charlie"); the fork points at its
// base's history instead of copying it.
const codexFork = "../../../e2e/testdata/codex_fork_of_fork"

func codexHome(t testing.TB) (home, base, fork string) {
	t.Helper()
	home = t.TempDir()
	err := filepath.WalkDir(codexFork, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(codexFork, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		id = id[len(id)-36:]
		if head, _, _ := bytes.Cut(data, []byte("\n")); bytes.Contains(head, []byte(`"history_base"`)) {
			fork = id
		} else {
			base = id
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(home, rel)), 0o700); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(home, rel), data, 0o600)
	})
	if err != nil || base == "" || fork == "" {
		t.Fatalf("recording: base %q fork %q: %v", base, fork, err)
	}
	return home, base, fork
}

func userTexts(items []protocol.ResponseItem) []string {
	var out []string
	for _, it := range items {
		if m, ok := it.(protocol.MessageItem); ok && rollout.IsUserTurnStart(m) {
			for _, c := range m.Content {
				out = append(out, c.Text)
			}
		}
	}
	return out
}

// A fork of Codex's fork, by every way in (Open's ForkID, Fork), carries the base's history.
func TestForkOfCodexForkKeepsBaseHistory(t *testing.T) {
	home, _, fork := codexHome(t)
	s := New(home)
	want := []string{"alpha", "bravo", "charlie"}
	opened, err := s.Open(Open{ForkID: fork})
	if err != nil {
		t.Fatal(err)
	}
	if got := userTexts(opened.Reconstruct().History); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Open(ForkID) history = %q, want %q", got, want)
	}
	path, _, err := s.Find(fork)
	if err != nil {
		t.Fatal(err)
	}
	src, forked, err := s.Fork(path, ForkOptions{DropTurns: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := userTexts(src.Reconstruct().History); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("the fork's source = %q, want %q", got, want)
	}
	if got := userTexts(forked.Reconstruct().History); strings.Join(got, ",") != "alpha,bravo" {
		t.Errorf("fork without the last turn = %q", got)
	}
	// The store itself refuses to copy a fork read without its base.
	head, err := s.ReadHead(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rollout.Fork(home, head, rollout.ForkOptions{NewID: "x"}); err == nil {
		t.Error("rollout.Fork copied a source read without its history base")
	}
}

// Archive, unarchive, rename and delete, in the documented order: the rollout (or the
// name) first, then the stores that mirror it; a store that cannot follow is a PartialError.
func TestArchiveRenameDelete(t *testing.T) {
	home, base, _ := codexHome(t)
	s := New(home)
	path, err := s.Archive(base)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(path, "archived_sessions") {
		t.Errorf("archived to %s", path)
	}
	if _, err := s.Open(Open{ResumeID: base}); !errors.Is(err, ErrNotFound) {
		t.Errorf("resume of an archived thread: %v", err)
	}
	if _, err := s.Unarchive(base); err != nil {
		t.Fatal(err)
	}
	if err := s.Rename(base, "my thread"); err != nil {
		t.Fatal(err)
	}
	if s.Name(base) != "my thread" {
		t.Errorf("name = %q", s.Name(base))
	}
	// The session index cannot be rewritten (a directory stands in its place): the rollout
	// is deleted all the same and the failure is a PartialError naming the index.
	if err := os.Remove(sessionindex.Path(home)); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(sessionindex.Path(home), 0o700); err != nil {
		t.Fatal(err)
	}
	err = s.Delete(base)
	if !IsPartial(err) || !strings.Contains(err.Error(), sessionindex.FileName) {
		t.Errorf("delete with a broken index: %v", err)
	}
	if _, _, err := s.Find(base); !errors.Is(err, ErrNotFound) {
		t.Errorf("the rollout is still there: %v", err)
	}
	if err := s.Delete(base); !errors.Is(err, ErrNotFound) || IsPartial(err) {
		t.Errorf("second delete: %v", err)
	}
}
