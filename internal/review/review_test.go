package review

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/protocol"
)

func TestPromptsAndHintsMatchCodex(t *testing.T) {
	title := "My T"
	cases := []struct {
		target      protocol.ReviewTarget
		mergeBase   string
		prompt, hnt string
	}{
		{protocol.ReviewTarget{Type: protocol.ReviewUncommitted}, "",
			"Review the current code changes (staged, unstaged, and untracked files) and provide prioritized findings.", "current changes"},
		{protocol.ReviewTarget{Type: protocol.ReviewBaseBranch, Branch: "main"}, "abc123",
			"Review the code changes against the base branch 'main'. The merge base commit for this comparison is abc123. Run `git diff abc123` to inspect the changes relative to main. Provide prioritized, actionable findings.",
			"changes against 'main'"},
		{protocol.ReviewTarget{Type: protocol.ReviewCommit, Sha: "470924b0c1"}, "",
			"Review the code changes introduced by commit 470924b0c1. Provide prioritized, actionable findings.", "commit 470924b"},
		{protocol.ReviewTarget{Type: protocol.ReviewCommit, Sha: "HEAD", Title: &title}, "",
			"Review the code changes introduced by commit HEAD (\"My T\"). Provide prioritized, actionable findings.", "commit HEAD: My T"},
		{protocol.ReviewTarget{Type: protocol.ReviewCustom, Instructions: "check the thing"}, "", "check the thing", "check the thing"},
	}
	for _, c := range cases {
		if got := Prompt(c.target, c.mergeBase); got != c.prompt {
			t.Errorf("Prompt(%+v) = %q", c.target, got)
		}
		if got := Hint(c.target); got != c.hnt {
			t.Errorf("Hint(%+v) = %q", c.target, got)
		}
	}
	if !strings.HasPrefix(Rubric(), "# Review guidelines:") || !strings.Contains(Rubric(), `"overall_confidence_score"`) {
		t.Error("the rubric lost its heading or its output schema")
	}
}

// Targets that name nothing are refused before any model call; the merge base is found.
func TestCheck(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	g := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-C", dir}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	g("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, "a"), []byte("1"), 0o644)
	g("add", ".")
	g("commit", "-qm", "one")
	g("checkout", "-qb", "feature")
	os.WriteFile(filepath.Join(dir, "a"), []byte("2"), 0o644)
	g("commit", "-qam", "two")
	ctx := context.Background()
	mb, err := Check(ctx, dir, protocol.ReviewTarget{Type: protocol.ReviewBaseBranch, Branch: "main"})
	if err != nil || len(mb) != 40 {
		t.Errorf("merge base %q, %v", mb, err)
	}
	if _, err := Check(ctx, dir, protocol.ReviewTarget{Type: protocol.ReviewCommit, Sha: "HEAD~1"}); err != nil {
		t.Errorf("HEAD~1: %v", err)
	}
	refused := map[string]protocol.ReviewTarget{
		`cannot review against branch "nosuch": no such branch in ` + dir:  {Type: protocol.ReviewBaseBranch, Branch: "nosuch"},
		`cannot review commit "deadbeef": no such commit in ` + dir:        {Type: protocol.ReviewCommit, Sha: "deadbeef"},
		"branch must not be empty":                                         {Type: protocol.ReviewBaseBranch},
		"instructions must not be empty":                                   {Type: protocol.ReviewCustom, Instructions: "  "},
		`cannot review commit "--output=/tmp/x": no such commit in ` + dir: {Type: protocol.ReviewCommit, Sha: "--output=/tmp/x"},
	}
	for want, target := range refused {
		if _, err := Check(ctx, dir, target); err == nil || err.Error() != want {
			t.Errorf("Check(%+v) = %v, want %q", target, err, want)
		}
	}
}
