package wire

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/appserver/schematest"
	"github.com/gocodex/gocodex/protocol"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// fixedProjector has a clock that ticks one millisecond per reading and ids item-1, item-2, …
func fixedProjector() *V2Projector {
	p := NewV2Projector("thread-1", nil)
	t := time.Unix(1_700_000_000, 0)
	p.now = func() time.Time { t = t.Add(time.Millisecond); return t }
	n := 0
	p.newID = func() string { n++; return "item-" + string(rune('0'+n)) }
	return p
}

var v2Scenarios = map[string][]protocol.EventMsg{
	"rerouted": {
		protocol.TurnStartedEvent{TurnID: "turn-1", StartedAt: ptr(int64(1_700_000_000))},
		protocol.UserMessageEvent{Message: "hi"},
		protocol.ModelRerouteEvent{FromModel: "gpt-5.5", ToModel: "gpt-5.4", Reason: protocol.ModelRerouteHighRiskCyberActivity},
		protocol.WarningEvent{Message: "routed"},
		protocol.AgentMessageEvent{Message: "Hello"},
		protocol.TurnCompleteEvent{TurnID: "turn-1"},
	},
	"plan_mode": {
		protocol.TurnStartedEvent{TurnID: "turn-1", StartedAt: ptr(int64(1_700_000_000)), CollaborationModeKind: "plan"},
		protocol.UserMessageEvent{Message: "plan it"},
		protocol.AgentMessageDeltaEvent{Delta: "Here is my plan.\n"},
		protocol.ItemStartedEvent{ThreadID: "thread-1", TurnID: "turn-1", Item: json.RawMessage(`{"type":"Plan","id":"turn-1-plan","text":""}`)},
		protocol.PlanDeltaEvent{ThreadID: "thread-1", TurnID: "turn-1", ItemID: "turn-1-plan", Delta: "# Plan\n"},
		protocol.AgentMessageDeltaEvent{Delta: "Done."},
		protocol.ItemCompletedEvent{ThreadID: "thread-1", TurnID: "turn-1", Item: json.RawMessage(`{"type":"Plan","id":"turn-1-plan","text":"# Plan\n"}`)},
		protocol.AgentMessageEvent{Message: "Here is my plan.\nDone."},
		protocol.TurnCompleteEvent{TurnID: "turn-1"},
	},
	"review": {
		protocol.TurnStartedEvent{TurnID: "turn-1", StartedAt: ptr(int64(1_700_000_000))},
		protocol.EnteredReviewModeEvent{Target: protocol.ReviewTarget{Type: protocol.ReviewUncommitted}, UserFacingHint: "current changes"},
		protocol.UserMessageEvent{Message: "Review the current code changes (staged, unstaged, and untracked files) and provide prioritized findings."},
		protocol.ExitedReviewModeEvent{ReviewOutput: &protocol.ReviewOutputEvent{OverallExplanation: "It breaks.", Findings: []protocol.ReviewFinding{{Title: "[P1] Fix it", Body: "Because.",
			CodeLocation: protocol.ReviewCodeLocation{AbsoluteFilePath: "/w/a.go", LineRange: protocol.ReviewLineRange{Start: 1, End: 2}}}}}},
		protocol.AgentMessageEvent{Message: "It breaks.\n\nReview comment:\n\n- [P1] Fix it — /w/a.go:1-2\n  Because."},
		protocol.TurnCompleteEvent{TurnID: "turn-1"},
	},
	"message_and_reasoning": {
		protocol.TurnStartedEvent{TurnID: "turn-1", StartedAt: ptr(int64(1_700_000_000))},
		protocol.UserMessageEvent{Message: "hi"},
		protocol.AgentReasoningDeltaEvent{Delta: "think"},
		protocol.AgentReasoningSectionBreakEvent{},
		protocol.AgentReasoningDeltaEvent{Delta: "more"},
		protocol.AgentMessageDeltaEvent{Delta: "Hel"},
		protocol.AgentMessageDeltaEvent{Delta: "lo"},
		protocol.AgentMessageEvent{Message: "Hello"},
		protocol.TokenCountEvent{Info: &protocol.TokenUsageInfo{TotalTokenUsage: protocol.TokenUsage{InputTokens: 3, OutputTokens: 2, TotalTokens: 5}, LastTokenUsage: protocol.TokenUsage{InputTokens: 3, OutputTokens: 2, TotalTokens: 5}}},
		protocol.TurnCompleteEvent{TurnID: "turn-1"},
	},
	"command_patch_plan": {
		protocol.TurnStartedEvent{TurnID: "turn-1", StartedAt: ptr(int64(1_700_000_000))},
		protocol.ExecApprovalRequestEvent{CallID: "call-1", TurnID: "turn-1", Command: []string{"bash", "-lc", "ls"}, Cwd: "/w",
			ParsedCmd: []protocol.ParsedCommand{{Type: "list_files", Cmd: "ls"}}},
		protocol.ExecCommandBeginEvent{CallID: "call-1", TurnID: "turn-1", Command: []string{"bash", "-lc", "ls"}, Cwd: "/w", ProcessID: "42"},
		protocol.ExecCommandOutputDeltaEvent{CallID: "call-1", Chunk: []byte("a.txt\n")},
		protocol.ExecCommandEndEvent{CallID: "call-1", TurnID: "turn-1", Command: []string{"bash", "-lc", "ls"}, Cwd: "/w", AggregatedOutput: "a.txt\n", ExitCode: 0},
		protocol.PatchApplyBeginEvent{CallID: "call-2", TurnID: "turn-1", Changes: map[string]protocol.FileChange{"/w/b.txt": {Kind: protocol.FileAdd, Content: "b\n"}}},
		protocol.PatchApplyEndEvent{CallID: "call-2", TurnID: "turn-1", Success: true, Stdout: "Success."},
		protocol.TurnDiffEvent{UnifiedDiff: "diff --git a/b.txt b/b.txt\n"},
		protocol.PlanUpdateEvent{Explanation: ptr("why"), Plan: []protocol.PlanItem{{Step: "a", Status: protocol.PlanInProgress}}},
		protocol.WarningEvent{Message: "careful"},
		protocol.TurnCompleteEvent{TurnID: "turn-1"},
	},
	// gocodex's own: a patch the language servers found errors in reports them as its output.
	"patch_with_diagnostics": {
		protocol.TurnStartedEvent{TurnID: "turn-1", StartedAt: ptr(int64(1_700_000_000))},
		protocol.PatchApplyBeginEvent{CallID: "call-2", TurnID: "turn-1", Changes: map[string]protocol.FileChange{"/w/main.go": {Kind: protocol.FileAdd, Content: "package main\n"}}},
		protocol.PatchApplyEndEvent{CallID: "call-2", TurnID: "turn-1", Success: true, Status: protocol.PatchCompleted,
			Stdout: "Success. Updated the following files:\nA main.go\n\nLanguage server diagnostics: 1 error, 0 warnings\nmain.go:4:2 error undefined: x (compiler)\n"},
		protocol.TurnCompleteEvent{TurnID: "turn-1"},
	},
	"declined_then_interrupted": {
		protocol.TurnStartedEvent{TurnID: "turn-1", StartedAt: ptr(int64(1_700_000_000))},
		protocol.ExecApprovalRequestEvent{CallID: "call-1", TurnID: "turn-1", Command: []string{"rm", "-rf", "x"}, Cwd: "/w"},
		protocol.ExecCommandBeginEvent{CallID: "call-9", TurnID: "turn-1", Command: []string{"sleep", "9"}, Cwd: "/w"},
		protocol.TurnAbortedEvent{TurnID: "turn-1", Reason: protocol.AbortInterrupted},
	},
	"stream_retried": {
		protocol.TurnStartedEvent{TurnID: "turn-1", StartedAt: ptr(int64(1_700_000_000))},
		protocol.UserMessageEvent{Message: "hi"},
		protocol.AgentReasoningDeltaEvent{Delta: "think"},
		protocol.AgentMessageDeltaEvent{Delta: "part"},
		protocol.StreamErrorEvent{Message: "Reconnecting... 1/5", CodexErrorInfo: json.RawMessage(`{"response_stream_disconnected":{"http_status_code":null}}`)},
		protocol.AgentReasoningDeltaEvent{Delta: "think again"},
		protocol.ItemStartedEvent{ThreadID: "thread-1", TurnID: "turn-1", Item: json.RawMessage(`{"type":"AgentMessage","id":"msg_2","content":[]}`)},
		protocol.AgentMessageDeltaEvent{Delta: "whole"},
		protocol.AgentMessageEvent{Message: "whole"},
		protocol.TurnCompleteEvent{TurnID: "turn-1"},
	},
	"failed_turn": {
		protocol.TurnStartedEvent{TurnID: "turn-1", StartedAt: ptr(int64(1_700_000_000))},
		protocol.StreamErrorEvent{Message: "Reconnecting... 1/5", CodexErrorInfo: json.RawMessage(`{"response_stream_disconnected":{"http_status_code":502}}`)},
		protocol.ErrorEvent{Message: "boom", CodexErrorInfo: json.RawMessage(`"context_window_exceeded"`)},
		protocol.TurnCompleteEvent{TurnID: "turn-1"},
	},
}

// TestV2Projection pins the notifications each scenario produces (testdata/v2/*.jsonl;
// refresh with -update).
func TestV2Projection(t *testing.T) {
	for name, evs := range v2Scenarios {
		t.Run(name, func(t *testing.T) {
			p := fixedProjector()
			v := schematest.ForTest(t)
			var buf bytes.Buffer
			for _, m := range evs {
				notes := p.Apply(protocol.Event{ID: "sub", Msg: m})
				if strings.HasPrefix(name, "declined") {
					if _, ok := m.(protocol.ExecApprovalRequestEvent); ok {
						notes = append(notes, p.ApprovalResolved("call-1", true)...)
					}
				}
				for _, n := range notes {
					params, err := protocol.Marshal(n.Params)
					if err != nil {
						t.Fatal(err)
					}
					if err := v.Validate(schematest.ServerNotificationParams, n.Method, params); err != nil {
						t.Errorf("%s does not fit the schema: %v\n%s", n.Method, err, params)
					}
					b, err := protocol.Marshal(map[string]any{"method": n.Method, "params": json.RawMessage(params)})
					if err != nil {
						t.Fatal(err)
					}
					buf.Write(b)
					buf.WriteByte('\n')
				}
			}
			path := filepath.Join("testdata", "v2", name+".jsonl")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if diff := cmp.Diff(string(want), buf.String()); diff != "" {
				t.Errorf("notifications (-want +got):\n%s", diff)
			}
		})
	}
}

// Replaying a thread's events rebuilds its turns with full items.
func TestV2ProjectorTurns(t *testing.T) {
	p := fixedProjector()
	for _, m := range v2Scenarios["message_and_reasoning"] {
		p.Apply(protocol.Event{Msg: m})
	}
	turns := p.Turns()
	if len(turns) != 1 {
		t.Fatalf("%d turns", len(turns))
	}
	var types []string
	for _, it := range turns[0].Items {
		b, _ := json.Marshal(it)
		var v struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(b, &v)
		types = append(types, v.Type)
	}
	if diff := cmp.Diff([]string{"userMessage", "reasoning", "agentMessage"}, types); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if r := turns[0].Items[1].(*V2Reasoning); !cmp.Equal(r.Summary, []string{"think", "more"}) {
		t.Errorf("reasoning summary = %q", r.Summary)
	}
	if got := p.Status().Type; got != "idle" {
		t.Errorf("status = %s", got)
	}
}

func TestV2ErrorInfo(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"context_window_exceeded"`, `"contextWindowExceeded"`},
		{`{"http_connection_failed":{"http_status_code":500}}`, `{"httpConnectionFailed":{"httpStatusCode":500}}`},
		{``, ``},
		{`null`, ``},
	}
	for _, tc := range tests {
		if got := string(V2ErrorInfo(json.RawMessage(tc.in))); got != tc.want {
			t.Errorf("V2ErrorInfo(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }
