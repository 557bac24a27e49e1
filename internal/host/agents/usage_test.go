package agents

import (
	"testing"

	"github.com/gocodex/gocodex/protocol"
)

// TestUsageIsKeptPerChildAndSummed: each child's token_count is kept with its identity and
// summed for its parent.
func TestUsageIsKeptPerChildAndSummed(t *testing.T) {
	w := newWorld(t, 0)
	w.call(t, "spawn_agent", `{"task_name":"a","message":"m"}`)
	w.call(t, "spawn_agent", `{"task_name":"b","message":"m"}`)
	for i, f := range w.children {
		u := protocol.TokenUsage{InputTokens: int64(10 * (i + 1)), OutputTokens: 5, TotalTokens: int64(10*(i+1) + 5)}
		f.events <- protocol.Event{Msg: protocol.TokenCountEvent{Info: &protocol.TokenUsageInfo{TotalTokenUsage: u, LastTokenUsage: u}}}
		answer(f, "done")
	}
	// Each final answer is posted after the child's token count was read.
	for answers := 0; answers < 2; {
		res := w.call(t, "wait_agent", `{"timeout_ms":60000}`)
		if !res.Success {
			t.Fatalf("wait: %q", res.Output)
		}
		answers += len(res.FollowUp)
	}
	each, sum := w.reg.Usage("root-thread")
	if len(each) != 2 || each[0].Path != "/root/a" || each[0].ThreadID != "child-/root/a" || each[0].Usage.InputTokens != 10 ||
		each[1].Path != "/root/b" || each[1].Usage.InputTokens != 20 {
		t.Errorf("per agent: %+v", each)
	}
	if sum.InputTokens != 30 || sum.OutputTokens != 10 || sum.TotalTokens != 40 {
		t.Errorf("sum: %+v", sum)
	}
	if each, _ := w.reg.Usage("child-/root/a"); len(each) != 0 {
		t.Errorf("a child without children has sub-agent usage %+v", each)
	}
}
