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

// TestSubagentUsagePerThreadOnTheAppServer: on the app-server each agent's usage is its own
// thread's thread/tokenUsage/updated, as Codex 0.169 reports it (run on it too with
// GOCODEX_REFERENCE_CODEX): the child's carries its thread id and its 2 requests, the root's
// its own 3 only.
func TestSubagentUsagePerThreadOnTheAppServer(t *testing.T) {
	for name, bin := range subagentBinaries() {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			e.Model.SetDefault(tk.Replying(subagentReply))
			c, _ := e.startAppServerOf(bin)
			root := c.startThread(map[string]any{"cwd": e.Workdir, "config": map[string]any{"features.multi_agent_v2": true}})
			c.turn(root, rootPrompt)
			seen := c.untilTurnOf(root)
			child := ""
			for _, it := range pick(seen, "item/completed") {
				if item, _ := it["item"].(map[string]any); item["type"] == "subAgentActivity" && item["kind"] == "started" {
					child, _ = item["agentThreadId"].(string)
				}
			}
			if child == "" {
				t.Fatal("no sub-agent started")
			}
			last := map[string]map[string]any{}
			for _, p := range pick(seen, "thread/tokenUsage/updated") {
				id, _ := p["threadId"].(string)
				usage, _ := p["tokenUsage"].(map[string]any)
				last[id], _ = usage["total"].(map[string]any)
			}
			for thread, want := range map[string]float64{root: 30, child: 20} {
				if got := last[thread]["inputTokens"]; got != want {
					t.Errorf("%s: thread %s's last total inputTokens %v, want %v", name, thread, got, want)
				}
			}
		})
	}
}
