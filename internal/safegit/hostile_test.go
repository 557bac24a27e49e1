//go:build unix

package safegit_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/review"
	"github.com/gocodex/gocodex/internal/rollout"
	"github.com/gocodex/gocodex/internal/safegit"
	"github.com/gocodex/gocodex/internal/snapshot"
	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/protocol"
)

// gitOp is one thing gocodex does with git on the user's repository.
type gitOp struct {
	name string
	// content: the operation reads file contents through the repository's configuration, so
	// it is refused when that configuration includes another file.
	content bool
	run     func(t *testing.T, repo string) error
}

// gitOps are every git operation of gocodex: a thread's snapshots and rewind (the turn
// snapshot runs on the first tool call of every session), review's target checks, the TUI's
// /diff, the app-server's gitDiffToRemote, and the session's git details (read from files).
var gitOps = []gitOp{
	{name: "review checks", run: func(t *testing.T, repo string) error {
		ctx := context.Background()
		mb, err := review.Check(ctx, repo, protocol.ReviewTarget{Type: protocol.ReviewBaseBranch, Branch: "base"})
		if err != nil {
			return err
		}
		if want := rev(t, repo, "base"); mb != want {
			return fmt.Errorf("merge base %q, want %q", mb, want)
		}
		if _, err := review.Check(ctx, repo, protocol.ReviewTarget{Type: protocol.ReviewCommit, Sha: rev(t, repo, "HEAD")}); err != nil {
			return err
		}
		_, err = review.Check(ctx, repo, protocol.ReviewTarget{Type: protocol.ReviewUncommitted})
		return err
	}},
	{name: "session git details", run: func(t *testing.T, repo string) error {
		if info := rollout.CollectGitInfo(repo); info == nil || info.Branch != "main" {
			return fmt.Errorf("git details %+v", info)
		}
		return nil
	}},
	{name: "/diff", content: true, run: func(t *testing.T, repo string) error {
		diff, untracked, err := safegit.New(safegit.Options{Dir: repo}).WorkTreeDiff(context.Background())
		if err != nil {
			return err
		}
		if !strings.Contains(diff, "+ALPHA TWO") || !strings.Contains(strings.Join(untracked, " "), "new.txt") {
			return fmt.Errorf("diff %q, untracked %q", diff, untracked)
		}
		return nil
	}},
	{name: "gitDiffToRemote", content: true, run: func(t *testing.T, repo string) error {
		sha, diff, err := safegit.New(safegit.Options{Dir: repo}).DiffToRemote(context.Background())
		if err != nil {
			return err
		}
		if sha != rev(t, repo, "base") || !strings.Contains(diff, "+ALPHA TWO") || !strings.Contains(diff, "+untracked") {
			return fmt.Errorf("sha %s, diff %q", sha, diff)
		}
		return nil
	}},
	{name: "snapshots, rewind and prune", content: true, run: snapshotAndRewind},
	// A fleet task's clone carries none of the repository's own configuration (so no include
	// to refuse); the checkout in it meets the repository's attributes and the user's drivers.
	{name: "fleet clone and diff", run: func(t *testing.T, repo string) error {
		ctx := context.Background()
		clone := filepath.Join(t.TempDir(), "clone")
		commit, err := safegit.CloneAt(ctx, repo, clone, "base")
		if err != nil {
			return err
		}
		if commit != rev(t, repo, "base") {
			return fmt.Errorf("cloned at %s, want base", commit)
		}
		write(t, filepath.Join(clone, "a.txt"), "changed in the clone\n")
		r := safegit.New(safegit.Options{Dir: clone, GitDir: filepath.Join(clone, ".git"), WorkTree: clone})
		if err := r.AddAll(ctx); err != nil {
			return err
		}
		diff, err := r.Output(ctx, "diff", "--cached", commit, "--")
		if err != nil {
			return err
		}
		if !strings.Contains(string(diff), "+changed in the clone") {
			return fmt.Errorf("diff %q", diff)
		}
		return nil
	}},
}

// snapshotAndRewind runs two turns' snapshots around edits, then rewinds both: the tree must
// come back byte for byte (no filter ran on the way in or out).
func snapshotAndRewind(t *testing.T, repo string) error {
	ctx := context.Background()
	home := t.TempDir()
	th, err := snapshot.Open(home, "thread-1", repo)
	if err != nil {
		return err
	}
	before := readTree(t, repo)
	for i, turn := range []string{"turn-1", "turn-2"} {
		if err := th.BeginTurn(ctx, turn); err != nil {
			return err
		}
		write(t, filepath.Join(repo, "a.txt"), fmt.Sprintf("edited by turn %d\n", i+1))
		write(t, filepath.Join(repo, "made.txt"), turn)
		if err := th.EndTurn(ctx, turn); err != nil {
			return err
		}
	}
	if _, err := th.Rewind(ctx, 2); err != nil {
		return err
	}
	if after := readTree(t, repo); after != before {
		return fmt.Errorf("rewind left\n%s\nwant\n%s", after, before)
	}
	return snapshot.Prune(home, "thread-1")
}

// TestHostileRepositoryRunsNoProgram plants each mechanism by which a repository (or a
// repository nested in it, or the user's config) names a program, then runs every git
// operation of gocodex on it: the marker program must never run, and each operation must
// work (or, for a configuration that includes other files, be refused with a reason). A
// witness run of plain git shows each planted program is live.
func TestHostileRepositoryRunsNoProgram(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, mech := range testkit.HostileGitMechanisms() {
		t.Run(mech.Name, func(t *testing.T) {
			t.Setenv("HOME", t.TempDir())
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			marker := testkit.NewGitMarker(t, "")
			repo := testkit.NewHostileGitFixture(t)
			mech.Plant(t, repo, marker)
			testkit.DirtyHostileGitFixture(t, repo)
			marker.Reset(t)
			for _, op := range gitOps {
				err := op.run(t, repo)
				switch {
				case mech.Include && op.content:
					if !errors.Is(err, safegit.ErrRefused) || !strings.Contains(err.Error(), "includes") {
						t.Errorf("%s: err %v, want a refusal naming the include", op.name, err)
					}
				case err != nil:
					t.Errorf("%s: %v", op.name, err)
				}
				if runs := marker.Runs(t); len(runs) > 0 {
					t.Errorf("%s ran the repository's program: %q", op.name, runs)
					marker.Reset(t)
				}
			}
			if mech.Witness == nil {
				return
			}
			for _, args := range mech.Witness {
				cmd := exec.Command("git", args...)
				cmd.Dir = repo
				cmd.Stdin = strings.NewReader(mech.WitnessStdin)
				cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
				cmd.Run() // many fail once the program ran (a filter that speaks no protocol)
			}
			if len(marker.Runs(t)) == 0 {
				t.Errorf("the fixture is not live: plain git %q ran no program", mech.Witness)
			}
		})
	}
}

func rev(t *testing.T, repo, name string) string {
	t.Helper()
	return strings.TrimSpace(testkit.GitFixtureCmd(t, repo, "rev-parse", name))
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readTree lists every file outside .git with its bytes (nested repositories' .git too).
func readTree(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.Name() == ".git" {
			if info.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			fmt.Fprintf(&b, "%s %q\n", rel, data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A split index keeps entries in a shared index that AddAll's reader does not follow: it is
// made whole first, so a gitlink kept there is left out all the same.
func TestAddAllLeavesOutGitlinksOfASplitIndex(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	marker := testkit.NewGitMarker(t, "")
	repo := testkit.NewHostileGitFixture(t)
	for _, mech := range testkit.HostileGitMechanisms() {
		if mech.Name == "nested repository with its own drivers" {
			mech.Plant(t, repo, marker)
		}
	}
	testkit.GitFixtureCmd(t, repo, "add", "sub") // a gitlink, without looking inside
	testkit.GitFixtureCmd(t, repo, "update-index", "--split-index")
	marker.Reset(t)
	r := safegit.New(safegit.Options{Dir: repo, GitDir: filepath.Join(repo, ".git"), WorkTree: repo})
	if err := r.AddAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	if runs := marker.Runs(t); len(runs) > 0 {
		t.Errorf("AddAll ran the nested repository's program: %q", runs)
	}
	if out := testkit.GitFixtureCmd(t, repo, "ls-files", "-s", "sub"); !strings.HasPrefix(out, "160000 ") {
		t.Errorf("the gitlink went: %q", out)
	}
	exec.Command("git", "-C", repo, "add", "-A").Run()
	if len(marker.Runs(t)) == 0 {
		t.Error("the fixture is not live: plain git add ran nothing")
	}
}
