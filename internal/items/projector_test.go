package items

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/protocol"
)

func ptr[T any](v T) *T { return &v }

func TestProjector(t *testing.T) {
	argv := []string{"/bin/bash", "-lc", "echo hi"}
	tests := []struct {
		name   string
		events []protocol.EventMsg
		want   []Update
	}{
		{
			name:   "messages and reasoning complete at once, ids count from 0",
			events: []protocol.EventMsg{protocol.AgentReasoningEvent{Text: "think"}, protocol.AgentMessageDeltaEvent{Delta: "h"}, protocol.AgentMessageEvent{Message: "hi"}},
			want: []Update{
				{Completed, Item{"item_0", ReasoningItem{Text: "think"}}},
				{Completed, Item{"item_1", AgentMessageItem{Text: "hi"}}},
			},
		},
		{
			name: "command: started then completed under the same id",
			events: []protocol.EventMsg{
				protocol.ExecCommandBeginEvent{CallID: "c1", Command: argv},
				protocol.ExecCommandOutputDeltaEvent{CallID: "c1", Chunk: []byte("hi\n")},
				protocol.ExecCommandEndEvent{CallID: "c1", Command: argv, AggregatedOutput: "hi\n", ExitCode: 0},
			},
			want: []Update{
				{Started, Item{"item_0", CommandExecutionItem{Command: "/bin/bash -lc 'echo hi'", Status: StatusInProgress}}},
				{Completed, Item{"item_0", CommandExecutionItem{Command: "/bin/bash -lc 'echo hi'", AggregatedOutput: "hi\n", ExitCode: ptr(0), Status: StatusCompleted}}},
			},
		},
		{
			name: "command output falls back to the streamed chunks",
			events: []protocol.EventMsg{
				protocol.ExecCommandBeginEvent{CallID: "c1", Command: argv},
				protocol.ExecCommandOutputDeltaEvent{CallID: "c1", Chunk: []byte("a")},
				protocol.ExecCommandOutputDeltaEvent{CallID: "c1", Chunk: []byte("b")},
				protocol.ExecCommandEndEvent{CallID: "c1", Command: argv, ExitCode: 1},
			},
			want: []Update{
				{Started, Item{"item_0", CommandExecutionItem{Command: "/bin/bash -lc 'echo hi'", Status: StatusInProgress}}},
				{Completed, Item{"item_0", CommandExecutionItem{Command: "/bin/bash -lc 'echo hi'", AggregatedOutput: "ab", ExitCode: ptr(1), Status: StatusFailed}}},
			},
		},
		{
			name: "end without begin gets a fresh id; declined wins over exit code",
			events: []protocol.EventMsg{
				protocol.ExecCommandEndEvent{CallID: "x", Command: []string{"rm", "-rf", "/"}, ExitCode: 0, Status: protocol.ExecDeclined},
			},
			want: []Update{
				{Completed, Item{"item_0", CommandExecutionItem{Command: "rm -rf /", ExitCode: ptr(0), Status: StatusDeclined}}},
			},
		},
		{
			name: "interleaved commands keep their own ids",
			events: []protocol.EventMsg{
				protocol.ExecCommandBeginEvent{CallID: "a", Command: []string{"a"}},
				protocol.ExecCommandBeginEvent{CallID: "b", Command: []string{"b"}},
				protocol.ExecCommandEndEvent{CallID: "b", Command: []string{"b"}},
				protocol.ExecCommandEndEvent{CallID: "a", Command: []string{"a"}, ExitCode: 2},
			},
			want: []Update{
				{Started, Item{"item_0", CommandExecutionItem{Command: "a", Status: StatusInProgress}}},
				{Started, Item{"item_1", CommandExecutionItem{Command: "b", Status: StatusInProgress}}},
				{Completed, Item{"item_1", CommandExecutionItem{Command: "b", ExitCode: ptr(0), Status: StatusCompleted}}},
				{Completed, Item{"item_0", CommandExecutionItem{Command: "a", ExitCode: ptr(2), Status: StatusFailed}}},
			},
		},
		{
			name: "patch lists files in path order",
			events: []protocol.EventMsg{
				protocol.PatchApplyBeginEvent{CallID: "p", Changes: map[string]protocol.FileChange{"/b": {Kind: protocol.FileDelete}, "/a": {Kind: protocol.FileAdd}}},
				protocol.PatchApplyEndEvent{CallID: "p", Success: false},
			},
			want: []Update{
				{Started, Item{"item_0", FileChangeItem{Changes: []FileUpdateChange{{"/a", protocol.FileAdd}, {"/b", protocol.FileDelete}}, Status: StatusInProgress}}},
				{Completed, Item{"item_0", FileChangeItem{Changes: []FileUpdateChange{{"/a", protocol.FileAdd}, {"/b", protocol.FileDelete}}, Status: StatusFailed}}},
			},
		},
		{
			name: "plan: started, updated, completed when the turn ends",
			events: []protocol.EventMsg{
				protocol.PlanUpdateEvent{Plan: []protocol.PlanItem{{Step: "x", Status: protocol.PlanPending}}},
				protocol.PlanUpdateEvent{Plan: []protocol.PlanItem{{Step: "x", Status: protocol.PlanCompleted}}},
				protocol.TurnCompleteEvent{},
				protocol.TurnCompleteEvent{},
				protocol.PlanUpdateEvent{Plan: []protocol.PlanItem{{Step: "y", Status: protocol.PlanInProgress}}},
				protocol.TurnAbortedEvent{Reason: protocol.AbortInterrupted},
			},
			want: []Update{
				{Started, Item{"item_0", TodoListItem{Items: []TodoItem{{"x", false}}}}},
				{Updated, Item{"item_0", TodoListItem{Items: []TodoItem{{"x", true}}}}},
				{Completed, Item{"item_0", TodoListItem{Items: []TodoItem{{"x", true}}}}},
				{Started, Item{"item_1", TodoListItem{Items: []TodoItem{{"y", false}}}}},
				{Completed, Item{"item_1", TodoListItem{Items: []TodoItem{{"y", false}}}}},
			},
		},
		{
			name: "web search and warnings",
			events: []protocol.EventMsg{
				protocol.WebSearchBeginEvent{CallID: "ws"},
				protocol.WebSearchEndEvent{CallID: "ws", Query: "q"},
				protocol.WarningEvent{Message: "careful"},
			},
			want: []Update{
				{Started, Item{"item_0", WebSearchItem{ID: "ws", Action: json.RawMessage(`{"type":"other"}`)}}},
				{Completed, Item{"item_0", WebSearchItem{ID: "ws", Query: "q", Action: json.RawMessage(`{"type":"other"}`)}}},
				{Completed, Item{"item_1", ErrorItem{Message: "careful"}}},
			},
		},
		{
			name: "mcp result marked is_error fails",
			events: []protocol.EventMsg{
				protocol.McpToolCallEndEvent{CallID: "m", Invocation: protocol.McpInvocation{Server: "s", Tool: "t"}, Result: protocol.McpToolResult{Ok: json.RawMessage(`{"content":[],"isError":true}`)}},
			},
			want: []Update{
				{Completed, Item{"item_0", McpToolCallItem{Server: "s", Tool: "t", Arguments: json.RawMessage("null"),
					Result: &McpToolCallResult{Content: []json.RawMessage{}, StructuredContent: json.RawMessage("null")}, Status: StatusFailed}}},
			},
		},
		{
			name:   "events that are not items",
			events: []protocol.EventMsg{protocol.TokenCountEvent{}, protocol.ErrorEvent{Message: "x"}, protocol.SessionConfiguredEvent{}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := NewProjector()
			var got []Update
			for _, ev := range tc.events {
				got = append(got, p.Apply(ev)...)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestItemJSON(t *testing.T) {
	tests := []struct {
		item Item
		want string
	}{
		{Item{"item_0", AgentMessageItem{Text: "<b> & </b>"}}, `{"id":"item_0","type":"agent_message","text":"<b> & </b>"}`},
		{Item{"item_1", CommandExecutionItem{Command: "ls", Status: StatusInProgress}}, `{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}`},
		{Item{"item_2", WebSearchItem{ID: "ws_1", Query: "q", Action: json.RawMessage(`{"type":"other"}`)}}, `{"id":"item_2","type":"web_search","id":"ws_1","query":"q","action":{"type":"other"}}`},
		{Item{"item_3", TodoListItem{Items: []TodoItem{{"a", true}}}}, `{"id":"item_3","type":"todo_list","items":[{"text":"a","completed":true}]}`},
		{Item{"item_4", ErrorItem{Message: "m"}}, `{"id":"item_4","type":"error","message":"m"}`},
	}
	for _, tc := range tests {
		got, err := protocol.Marshal(tc.item)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
	if _, err := protocol.Marshal(Item{ID: "x"}); err == nil {
		t.Error("item without details encoded")
	}
}

func TestJoinCommand(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		// The first four were observed in Codex 0.169's exec --json output.
		{[]string{"/bin/bash", "-lc", "echo hi; echo oops >&2"}, `/bin/bash -lc 'echo hi; echo oops >&2'`},
		{[]string{"/bin/bash", "-lc", "true"}, `/bin/bash -lc true`},
		{[]string{"/bin/bash", "-lc", `echo "it's" a=b`}, `/bin/bash -lc "echo \"it's\" a=b"`},
		{[]string{"/bin/bash", "-lc", "echo a,b.c_d+e:f@g%h/i-j"}, `/bin/bash -lc 'echo a,b.c_d+e:f@g%h/i-j'`},
		{[]string{"git", "commit", "-m", ""}, `git commit -m ''`},
		{[]string{"echo", "it's $HOME"}, `echo "it's \$HOME"`},
		{nil, ""},
	}
	for _, tc := range tests {
		if got := JoinCommand(tc.argv); got != tc.want {
			t.Errorf("JoinCommand(%q) = %s, want %s", tc.argv, got, tc.want)
		}
	}
}
