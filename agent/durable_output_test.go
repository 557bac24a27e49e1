package agent

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// gatedStreamer serves each request from its own channel of events, so a test decides when
// the model's stream moves on; a closed channel ends the stream.
type gatedStreamer struct {
	streams chan chan modelstream.ResponseEvent
}

func (g gatedStreamer) Stream(ctx context.Context, p modelstream.Prompt, obs modelstream.RetryObserver) (ModelStream, error) {
	select {
	case ch := <-g.streams:
		return gatedStream(ch), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type gatedStream chan modelstream.ResponseEvent

func (s gatedStream) Next(ctx context.Context) (modelstream.ResponseEvent, error) {
	select {
	case ev, ok := <-s:
		if !ok {
			return nil, io.EOF
		}
		return ev, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s gatedStream) Close() error { return nil }

// seqRecorder logs what reaches the rollout, items and events in one sequence.
type seqRecorder struct {
	mu  sync.Mutex
	seq []string
}

func (r *seqRecorder) RecordItems(items []protocol.ResponseItem) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, it := range items {
		s := "item " + it.ItemType()
		switch it := it.(type) {
		case protocol.FunctionCallItem:
			s += " " + it.CallID
		case protocol.FunctionCallOutputItem:
			s += " " + it.CallID + " " + it.Output.Content
		case protocol.MessageItem:
			s += " " + it.Role
		}
		r.seq = append(r.seq, s)
	}
	return nil
}

func (r *seqRecorder) RecordEvent(ev protocol.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq = append(r.seq, "event "+ev.Msg.EventType())
	return nil
}

func (r *seqRecorder) Flush() error { return nil }

func (r *seqRecorder) snapshot() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seq...)
}

// A tool's output is in the rollout before the event showing its end goes out, while the
// model is still streaming (issue 12): a kill at that moment loses nothing the user saw.
// Events the tool emits after its end event wait too, so their order is kept.
func TestToolOutputRecordedBeforeItsEndEvent(t *testing.T) {
	rec := &seqRecorder{}
	g := gatedStreamer{streams: make(chan chan modelstream.ResponseEvent, 2)}
	run := fakeTool{name: "run", handle: func(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
		env.Emit(protocol.ExecCommandBeginEvent{CallID: call.CallID})
		env.Emit(protocol.ExecCommandEndEvent{CallID: call.CallID, ExitCode: 0})
		env.Emit(protocol.TurnDiffEvent{UnifiedDiff: "diff"})
		return tool.Result{Output: "ran", Success: true}, nil
	}}
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.Streamer = g
		c.Recorder = rec
		c.ExtraTools = []tool.Handler{run}
	}})
	first := make(chan modelstream.ResponseEvent)
	g.streams <- first
	h.say("go")
	first <- modelstream.OutputItemDone{Item: protocol.FunctionCallItem{CallID: "c1", Name: "run", Arguments: "{}"}}
	evs := h.until(isType("exec_command_end"))
	// The stream is still open: nothing after the call has been sent yet.
	got := rec.snapshot()
	want := []string{"item function_call c1", "event exec_command_begin", "item function_call_output c1 ran", "event exec_command_end"}
	at := slices.Index(got, want[0])
	if at < 0 || len(got) < at+len(want) || !cmp.Equal(want, got[at:at+len(want)]) {
		t.Fatalf("rollout when exec_command_end went out (want it to end with %q):\n%q", want, got)
	}
	if next := h.until(isType("turn_diff")); len(next) != 1 {
		t.Errorf("events between exec_command_end and turn_diff: %v (after %v)", types(next), types(evs))
	}
	first <- modelstream.OutputItemDone{Item: protocol.MessageItem{Role: "assistant", Content: []protocol.ContentItem{{Type: protocol.ContentOutputText, Text: "done"}}}}
	close(first)
	second := make(chan modelstream.ResponseEvent)
	g.streams <- second
	close(second)
	h.until(turnEnd)
	// Exactly one output for the call, after it.
	outs := 0
	for _, s := range rec.snapshot() {
		if s == "item function_call_output c1 ran" {
			outs++
		}
	}
	if outs != 1 {
		t.Errorf("%d outputs recorded for c1: %q", outs, rec.snapshot())
	}
}

// alternatingStreamer answers requests in turn with each of its responses, round and round.
type alternatingStreamer struct {
	mu        sync.Mutex
	n         int
	responses [][]modelstream.ResponseEvent
}

func (a *alternatingStreamer) Stream(ctx context.Context, p modelstream.Prompt, obs modelstream.RetryObserver) (ModelStream, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	evs := a.responses[a.n%len(a.responses)]
	a.n++
	return &fakeStream{events: evs}, nil
}

// BenchmarkToolCallsRecorded is a turn of eight tool calls, each emitting its begin and end
// events, then an answer: what recording each output before its end event (issue 12) costs
// on the turn's hot path. Run: go test -run '^$' -bench ToolCallsRecorded ./agent
func BenchmarkToolCallsRecorded(b *testing.B) {
	run := fakeTool{name: "run", handle: func(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
		env.Emit(protocol.ExecCommandBeginEvent{CallID: call.CallID})
		env.Emit(protocol.ExecCommandEndEvent{CallID: call.CallID})
		return tool.Result{Output: "ran", Success: true}, nil
	}}
	calls := []modelstream.ResponseEvent{modelstream.Created{}}
	for i := range 8 {
		calls = append(calls, modelstream.OutputItemDone{Item: protocol.FunctionCallItem{CallID: fmt.Sprintf("c%d", i), Name: "run", Arguments: "{}"}})
	}
	calls = append(calls, modelstream.Completed{ResponseID: "r1"})
	answer := []modelstream.ResponseEvent{modelstream.Created{},
		modelstream.OutputItemDone{Item: protocol.MessageItem{Role: "assistant", Content: []protocol.ContentItem{{Type: protocol.ContentOutputText, Text: "done"}}}},
		modelstream.Completed{ResponseID: "r2"}}
	mgr := NewThreadManager(nil)
	th, err := mgr.StartThread(context.Background(), ThreadConfig{Model: "bench", Cwd: b.TempDir(),
		Streamer: &alternatingStreamer{responses: [][]modelstream.ResponseEvent{calls, answer}},
		Recorder: &memRecorder{}, ExtraTools: []tool.Handler{run}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := th.Submit(protocol.UserInputOp{Items: []protocol.InputItem{protocol.TextInput("go")}}); err != nil {
			b.Fatal(err)
		}
		for {
			ev, err := th.NextEvent(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := ev.Msg.(protocol.TurnCompleteEvent); ok {
				break
			}
		}
	}
	b.StopTimer()
	if err := mgr.Close(ctx); err != nil {
		b.Fatal(err)
	}
}
