package cli

import (
	"strings"
	"testing"
)

func TestAgentProtectionsByGitVersion(t *testing.T) {
	for _, c := range []struct {
		version string
		active  bool
		says    string
	}{
		{"git version 2.39.5\n", true, "git 2.39"},
		{"git version 2.31.0.windows.1\n", true, "git 2.31"},
		{"git version 2.30.9\n", false, "older than 2.31"},
		{"", false, "git not found"},
		{"garbage", false, "cannot read the git version"},
	} {
		ps := AgentProtections(true, c.version)
		var git Protection
		for _, p := range ps {
			if p.Name == "git programs" {
				git = p
			}
		}
		if git.Active != c.active || !strings.Contains(git.Detail, c.says) {
			t.Errorf("%q: got %+v, want active=%v and %q", c.version, git, c.active, c.says)
		}
	}
}

func TestAgentProtectionsNameEachDefence(t *testing.T) {
	var b strings.Builder
	WriteProtections(&b, AgentProtections(false, "git version 2.39.5"))
	out := b.String()
	for _, want := range []string{"inactive patches", "active   project trust", "active   git programs", "active   headless approvals", "apply_patch under a sandboxed policy is refused"} {
		if !strings.Contains(out, want) {
			t.Errorf("explanation lacks %q:\n%s", want, out)
		}
	}
}
