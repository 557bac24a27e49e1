package wire

import (
	"bufio"
	"encoding/json"
	"os"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/protocol"
)

func hookRun(status protocol.HookRunStatus, entries ...protocol.HookOutputEntry) protocol.HookRunSummary {
	r := protocol.HookRunSummary{ID: "user-prompt-submit:2:/home/.codex/hooks.json", EventName: "user_prompt_submit", HandlerType: "command",
		ExecutionMode: "sync", Scope: "turn", SourcePath: "/home/.codex/hooks.json", Source: "user", DisplayOrder: 2, Status: status,
		StartedAt: 1_700_000_000, Entries: entries}
	if status != protocol.HookRunning {
		r.CompletedAt, r.DurationMs = ptr(int64(1_700_000_001)), ptr(int64(1005))
	}
	return r
}

func init() {
	v2Scenarios["hooks"] = []protocol.EventMsg{
		protocol.TurnStartedEvent{TurnID: "turn-1", StartedAt: ptr(int64(1_700_000_000))},
		protocol.HookStartedEvent{TurnID: ptr("turn-1"), Run: hookRun(protocol.HookRunning)},
		protocol.HookCompletedEvent{TurnID: ptr("turn-1"), Run: hookRun(protocol.HookFailed, protocol.HookOutputEntry{Kind: "error", Text: "hook timed out after 1s"})},
		protocol.UserMessageEvent{Message: "hi"},
		protocol.TurnCompleteEvent{TurnID: "turn-1"},
	}
}

// Our hook notifications carry the keys Codex 0.169 sends (observed, internal/hooks/testdata).
func TestHookNotificationsMatchCodexKeys(t *testing.T) {
	f, err := os.Open("../../hooks/testdata/codex0169_hook_notifications.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var n struct {
			Method string
			Params map[string]json.RawMessage
		}
		if err := json.Unmarshal(sc.Bytes(), &n); err != nil {
			t.Fatal(err)
		}
		want[n.Method+" params"] = keys(t, sc.Bytes(), "params")
		want[n.Method+" run"] = keys(t, n.Params["run"])
	}
	p := fixedProjector()
	got := map[string][]string{}
	for _, m := range []protocol.EventMsg{
		protocol.HookStartedEvent{TurnID: ptr("turn-1"), Run: hookRun(protocol.HookRunning)},
		protocol.HookCompletedEvent{TurnID: ptr("turn-1"), Run: hookRun(protocol.HookCompleted, protocol.HookOutputEntry{Kind: "context", Text: "x"})},
	} {
		for _, n := range p.Apply(protocol.Event{Msg: m}) {
			b, err := protocol.Marshal(n.Params)
			if err != nil {
				t.Fatal(err)
			}
			got[n.Method+" params"] = keys(t, b)
			var run struct{ Run json.RawMessage }
			_ = json.Unmarshal(b, &run)
			got[n.Method+" run"] = keys(t, run.Run)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("keys (-codex +ours):\n%s", diff)
	}
}

// keys lists the keys of an object (or of its member at path), sorted.
func keys(t *testing.T, b []byte, path ...string) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, p := range path {
		var inner map[string]json.RawMessage
		if err := json.Unmarshal(m[p], &inner); err != nil {
			t.Fatal(err)
		}
		m = inner
	}
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
