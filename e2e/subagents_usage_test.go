package e2e

import (
	"regexp"
	"strings"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// TestSubagentUsageInExecSummary: exec's human summary adds each sub-agent's tokens (its
// path and thread id) and the root's turn's total with them, gocodex's own place for it
// (Codex's turn.completed usage counts the root's requests only, and so does gocodex's
// --json, compared with Codex in TestSubagentsMatchReference). Every response of the script
// counts 10 input and 5 output tokens: the root makes 3 requests, the child 2.
func TestSubagentUsageInExecSummary(t *testing.T) {
	e := newEnv(t)
	e.Model.SetDefault(tk.Replying(subagentReply))
	res := e.run("", "exec", "--skip-git-repo-check", "--enable", "multi_agent_v2", rootPrompt)
	if res.Code != 0 {
		t.Fatalf("exit %d\nstderr: %s", res.Code, res.Stderr)
	}
	want := regexp.MustCompile(`tokens used\n45\ntokens used by sub-agents\n/root/` + childTaskName +
		` \([0-9a-f-]{36}\) 30\ntokens used with sub-agents\n75\n`)
	if !want.MatchString(res.Stderr) {
		t.Errorf("the summary lacks the sub-agents' usage:\n%s", res.Stderr[max(0, strings.LastIndex(res.Stderr, "tokens used")-200):])
	}
}
