package items

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/protocol"
)

// trace is the fold's changes as "phase kind id [delta]" lines.
func trace(f *Fold, events ...protocol.EventMsg) string {
	var b strings.Builder
	for _, ev := range events {
		for _, ch := range f.Apply(ev) {
			kind := typeName(ch.Body)
			b.WriteString(strings.TrimPrefix(string(ch.Phase), "item.") + " " + kind + " " + ch.ID)
			if ch.Phase == Updated && ch.Delta.Text != "" {
				b.WriteString(" " + ch.Delta.Text)
			}
			if ch.CutShort {
				b.WriteString(" cut-short")
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func typeName(b Body) string {
	switch b.(type) {
	case *AgentMessage:
		return "message"
	case *Reasoning:
		return "reasoning"
	case *Command:
		return "command"
	case *Patch:
		return "patch"
	case *TodoList:
		return "todo"
	case *ProposedPlan:
		return "plan"
	}
	return "other"
}

func TestFoldOrder(t *testing.T) {
	tests := []struct {
		name   string
		events []protocol.EventMsg
		want   string
	}{
		{
			name: "reasoning completes before the message and the command that follow it",
			events: []protocol.EventMsg{
				protocol.TurnStartedEvent{}, protocol.AgentReasoningDeltaEvent{Delta: "hm"},
				protocol.ExecCommandBeginEvent{CallID: "c1"}, protocol.AgentReasoningDeltaEvent{Delta: "so"},
				protocol.AgentMessageDeltaEvent{Delta: "ok"}, protocol.AgentMessageEvent{Message: "ok."},
			},
			want: "started reasoning item_0\nupdated reasoning item_0 hm\ncompleted reasoning item_0\nstarted command c1\n" +
				"started reasoning item_1\nupdated reasoning item_1 so\ncompleted reasoning item_1\n" +
				"started message item_2\nupdated message item_2 ok\ncompleted message item_2\n",
		},
		{
			name: "an approval starts the command; its begin only updates it",
			events: []protocol.EventMsg{
				protocol.ExecApprovalRequestEvent{CallID: "c1"}, protocol.ExecCommandBeginEvent{CallID: "c1"},
				protocol.ExecCommandEndEvent{CallID: "c1"},
			},
			want: "started command c1\nupdated command c1\ncompleted command c1\n",
		},
		{
			name: "a turn's end: streams, then the calls it cut short, then the to-do list",
			events: []protocol.EventMsg{
				protocol.TurnStartedEvent{}, protocol.PlanUpdateEvent{}, protocol.AgentMessageDeltaEvent{Delta: "x"},
				protocol.PatchApplyBeginEvent{CallID: "p1"}, protocol.ExecCommandBeginEvent{CallID: "bg", ProcessID: "7"},
				protocol.TurnAbortedEvent{},
			},
			want: "started todo todo_list\nstarted message item_0\nupdated message item_0 x\nstarted patch p1\nstarted command bg\n" +
				"dropped message item_0\ncompleted patch p1 cut-short\ncompleted command bg cut-short\ncompleted todo todo_list\n",
		},
		{
			name: "a successful turn leaves an exec_command session open until it ends",
			events: []protocol.EventMsg{
				protocol.TurnStartedEvent{}, protocol.ExecCommandBeginEvent{CallID: "bg", ProcessID: "7"},
				protocol.TurnCompleteEvent{}, protocol.ExecCommandEndEvent{CallID: "bg"},
			},
			want: "started command bg\ncompleted command bg\n",
		},
		{
			name: "a stream error drops what was streaming; the retry is a new message",
			events: []protocol.EventMsg{
				protocol.AgentMessageDeltaEvent{Delta: "a"}, protocol.StreamErrorEvent{},
				protocol.AgentMessageDeltaEvent{Delta: "b"},
			},
			want: "started message item_0\nupdated message item_0 a\ndropped message item_0\nstarted message item_1\nupdated message item_1 b\n",
		},
		{
			name: "plan mode's plan streams inside the message, which goes on",
			events: []protocol.EventMsg{
				protocol.AgentMessageDeltaEvent{Delta: "a"},
				protocol.ItemStartedEvent{Item: json.RawMessage(`{"type":"Plan","id":"p"}`)},
				protocol.PlanDeltaEvent{ItemID: "p", Delta: "# P"},
				protocol.ItemCompletedEvent{Item: json.RawMessage(`{"type":"Plan","id":"p","text":"# P"}`)},
				protocol.AgentMessageDeltaEvent{Delta: "b"},
			},
			want: "started message item_0\nupdated message item_0 a\nstarted plan p\nupdated plan p # P\ncompleted plan p\nupdated message item_0 b\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := trace(NewFold(FoldOptions{}), tc.events...); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestFoldDecline(t *testing.T) {
	f := NewFold(FoldOptions{})
	f.Apply(protocol.ApplyPatchApprovalRequestEvent{CallID: "p1"})
	got := f.Decline("p1")
	if len(got) != 1 || got[0].Phase != Completed || !got[0].Refused || got[0].Body.(*Patch).Status != StatusDeclined {
		t.Fatalf("Decline = %+v", got)
	}
	if again := f.Decline("p1"); again != nil {
		t.Errorf("a second Decline completed the patch again: %+v", again)
	}
}

func TestFoldNoStreamCopies(t *testing.T) {
	f := NewFold(FoldOptions{NoStreamCopies: true})
	f.Apply(protocol.ExecCommandBeginEvent{CallID: "c"})
	deltas := f.Apply(protocol.ExecCommandOutputDeltaEvent{CallID: "c", Chunk: []byte("out")})
	if len(deltas) != 1 || string(deltas[0].Delta.Chunk) != "out" {
		t.Fatalf("the output delta was not passed on: %+v", deltas)
	}
	end := f.Apply(protocol.ExecCommandEndEvent{CallID: "c"})
	if out := end[0].Body.(*Command).Output(); out != "" {
		t.Errorf("the fold kept a copy of the output: %q", out)
	}
	f.Apply(protocol.AgentMessageDeltaEvent{Delta: "hi"})
	done := f.Apply(protocol.AgentMessageEvent{Message: "hi"})
	if m := done[0].Body.(*AgentMessage); m.Streamed() != "" || m.Text != "hi" {
		t.Errorf("message: streamed %q, text %q", m.Streamed(), m.Text)
	}
}
