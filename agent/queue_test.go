package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
)

func TestQueueCoalescesOnlyDeltasUnderBacklog(t *testing.T) {
	q := newEventQueue()
	// Below the backlog threshold every delta stays separate.
	q.push(protocol.Event{ID: "1", Msg: protocol.AgentMessageDeltaEvent{Delta: "a"}})
	q.push(protocol.Event{ID: "1", Msg: protocol.AgentMessageDeltaEvent{Delta: "b"}})
	for i := 0; i < coalesceBacklog; i++ {
		q.push(protocol.Event{ID: "1", Msg: protocol.AgentMessageDeltaEvent{Delta: "x"}})
	}
	// Now the reader is behind: these merge into the tail.
	q.push(protocol.Event{ID: "1", Msg: protocol.AgentMessageDeltaEvent{Delta: "y"}})
	q.push(protocol.Event{ID: "1", Msg: protocol.AgentMessageDeltaEvent{Delta: "z"}})
	// Never merged: other types, other ids, other exec streams.
	q.push(protocol.Event{ID: "1", Msg: protocol.AgentMessageEvent{Message: "m"}})
	q.push(protocol.Event{ID: "1", Msg: protocol.AgentMessageEvent{Message: "m"}})
	q.push(protocol.Event{ID: "2", Msg: protocol.AgentMessageDeltaEvent{Delta: "other turn"}})
	q.push(protocol.Event{ID: "2", Msg: protocol.ExecCommandOutputDeltaEvent{CallID: "c", Stream: "stdout", Chunk: []byte("o1")}})
	q.push(protocol.Event{ID: "2", Msg: protocol.ExecCommandOutputDeltaEvent{CallID: "c", Stream: "stdout", Chunk: []byte("o2")}})
	q.push(protocol.Event{ID: "2", Msg: protocol.ExecCommandOutputDeltaEvent{CallID: "c", Stream: "stderr", Chunk: []byte("e1")}})
	q.push(protocol.Event{ID: "2", Msg: protocol.TurnCompleteEvent{TurnID: "2"}})
	q.close()

	var text strings.Builder
	var got []string
	ctx := context.Background()
	for {
		ev, err := q.next(ctx)
		if err == ErrThreadClosed {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch m := ev.Msg.(type) {
		case protocol.AgentMessageDeltaEvent:
			if ev.ID == "1" {
				text.WriteString(m.Delta)
			}
		case protocol.ExecCommandOutputDeltaEvent:
			got = append(got, string(m.Stream)+":"+string(m.Chunk))
			continue
		}
		got = append(got, ev.Msg.EventType())
	}
	if want := "ab" + strings.Repeat("x", coalesceBacklog) + "yz"; text.String() != want {
		t.Errorf("delta text = %q, want %q", text.String(), want)
	}
	want := append(append([]string{}, repeat("agent_message_delta", coalesceBacklog)...),
		"agent_message", "agent_message", "agent_message_delta", "stdout:o1o2", "stderr:e1", "task_complete")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestQueueNextHonoursContext(t *testing.T) {
	q := newEventQueue()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := q.next(ctx); err != context.Canceled {
		t.Errorf("next on canceled ctx = %v", err)
	}
}

func TestQueueWakesWaitingReader(t *testing.T) {
	q := newEventQueue()
	got := make(chan protocol.Event)
	go func() {
		ev, _ := q.next(context.Background())
		got <- ev
	}()
	q.push(protocol.Event{ID: "1", Msg: protocol.WarningEvent{Message: "w"}})
	select {
	case ev := <-got:
		if ev.ID != "1" {
			t.Errorf("got %+v", ev)
		}
	case <-time.After(hangGuard):
		t.Fatal("reader never woke")
	}
}

// BenchmarkDeltasThroughThread measures text deltas per second from model events into a
// thread to NextEvent out (the model side is an in-memory stream, so this is the engine's
// own cost). Run: go test -run '^$' -bench DeltasThroughThread ./agent
func BenchmarkDeltasThroughThread(b *testing.B) {
	const perTurn = 10000
	events := []modelstream.ResponseEvent{modelstream.Created{}}
	for i := 0; i < perTurn; i++ {
		events = append(events, modelstream.OutputTextDelta{ItemID: "m", Delta: "tok "})
	}
	events = append(events,
		modelstream.OutputItemDone{Item: protocol.MessageItem{Role: "assistant", Content: []protocol.ContentItem{{Type: protocol.ContentOutputText, Text: "done"}}}},
		modelstream.Completed{ResponseID: "r"})
	mgr := NewThreadManager(nil)
	th, err := mgr.StartThread(context.Background(), ThreadConfig{Model: "bench", Streamer: fakeStreamer{events: events}, Cwd: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	var deltas int
	for i := 0; i < b.N; i++ {
		if _, err := th.Submit(protocol.UserInputOp{Items: []protocol.InputItem{protocol.TextInput("go")}}); err != nil {
			b.Fatal(err)
		}
		for {
			ev, err := th.NextEvent(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if m, ok := ev.Msg.(protocol.AgentMessageDeltaEvent); ok {
				deltas += strings.Count(m.Delta, "tok ")
			}
			if _, ok := ev.Msg.(protocol.TurnCompleteEvent); ok {
				break
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(deltas)/b.Elapsed().Seconds(), "deltas/s")
	if err := mgr.Close(ctx); err != nil {
		b.Fatal(err)
	}
}
