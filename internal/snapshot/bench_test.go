package snapshot

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// benchFiles is the size of the benchmark repository: 100 directories of 100 files.
const benchFiles = 10_000

var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
)

// benchFixture builds, once per test binary, the 10k-file tree twice: as a committed git
// repository and as a plain directory.
func benchFixture(b *testing.B) (gitRoot, plainRoot string) {
	b.Helper()
	needGit(b)
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "snapshot-bench-")
		if benchErr != nil {
			return
		}
		for _, root := range []string{filepath.Join(benchDir, "git"), filepath.Join(benchDir, "plain")} {
			for i := range benchFiles {
				rel := fmt.Sprintf("pkg%02d/file%03d.go", i/100, i%100)
				content := fmt.Sprintf("package pkg%02d\n\n// file %d\n%s", i/100, i, strings.Repeat("var x = 1 // padding\n", 40))
				p := filepath.Join(root, rel)
				if benchErr = os.MkdirAll(filepath.Dir(p), 0o755); benchErr != nil {
					return
				}
				if benchErr = os.WriteFile(p, []byte(content), 0o644); benchErr != nil {
					return
				}
			}
		}
		gitRoot := filepath.Join(benchDir, "git")
		for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "bench"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = gitRoot
			cmd.Env = append(gitEnv(), "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@example.invalid", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@example.invalid")
			if out, err := cmd.CombinedOutput(); err != nil {
				benchErr = fmt.Errorf("git %v: %v\n%s", args, err, out)
				return
			}
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return filepath.Join(benchDir, "git"), filepath.Join(benchDir, "plain")
}

func removeBenchFixtures() {
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
}

// editSome changes three files, as a turn would, outside the timer.
func editSome(b *testing.B, root string, i int) {
	b.StopTimer()
	for k := range 3 {
		rel := fmt.Sprintf("pkg%02d/file%03d.go", (i*7+k)%100, (i*13+k)%100)
		if err := os.WriteFile(filepath.Join(root, rel), fmt.Appendf(nil, "package x\n// edit %d\n", i), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.StartTimer()
}

func benchSnapshot(b *testing.B, root string, end bool) {
	th, err := Open(b.TempDir(), "bench", root)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	// The first snapshot of a thread seeds its stores; the benchmark is the turns after it.
	if err := th.BeginTurn(ctx, "warm"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		editSome(b, root, i)
		id := fmt.Sprint("turn-", i)
		if err := th.BeginTurn(ctx, id); err != nil {
			b.Fatal(err)
		}
		if end {
			if err := th.EndTurn(ctx, id); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkSnapshotTurn10k is the snapshot before one turn in a 10k-file git repository.
func BenchmarkSnapshotTurn10k(b *testing.B) {
	gitRoot, _ := benchFixture(b)
	benchSnapshot(b, gitRoot, false)
}

// BenchmarkSnapshotWholeTurn10k is both snapshots of one turn (before and after).
func BenchmarkSnapshotWholeTurn10k(b *testing.B) {
	gitRoot, _ := benchFixture(b)
	benchSnapshot(b, gitRoot, true)
}

// BenchmarkGitStatus10k is a plain `git status --porcelain` on the same repository.
func BenchmarkGitStatus10k(b *testing.B) {
	gitRoot, _ := benchFixture(b)
	run := func() {
		cmd := exec.Command("git", "status", "--porcelain")
		cmd.Dir = gitRoot
		cmd.Env = gitEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git status: %v\n%s", err, out)
		}
	}
	run() // refreshes the user's index once, as any earlier status would have
	b.ResetTimer()
	for i := range b.N {
		editSome(b, gitRoot, i)
		run()
	}
}

// BenchmarkFilesSnapshotTurn10k is the snapshot before one turn of the same 10k files
// without git (the content-addressed store with its stat cache).
func BenchmarkFilesSnapshotTurn10k(b *testing.B) {
	_, plainRoot := benchFixture(b)
	benchSnapshot(b, plainRoot, false)
}

// BenchmarkFilesSnapshotWholeTurn10k is both snapshots of one turn without git.
func BenchmarkFilesSnapshotWholeTurn10k(b *testing.B) {
	_, plainRoot := benchFixture(b)
	benchSnapshot(b, plainRoot, true)
}
