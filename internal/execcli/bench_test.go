package execcli

import (
	"io"
	"strconv"
	"testing"

	"github.com/gocodex/gocodex/protocol"
)

// BenchmarkJSONWriterDeltas measures text deltas per second through the --json writer
// (Codex writes no line for a delta, so this is the per-event overhead on the hot path).
func BenchmarkJSONWriterDeltas(b *testing.B) {
	w := NewJSONWriter(io.Discard)
	ev := protocol.Event{ID: "0", Msg: protocol.AgentMessageDeltaEvent{Delta: "token "}}
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Handle(ev); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deltas/s")
}

// BenchmarkJSONWriterTurn runs a whole turn of 1000 deltas, a command and the final message,
// so lines are actually encoded.
func BenchmarkJSONWriterTurn(b *testing.B) {
	var sc scenario
	for _, s := range scenarios() {
		if s.name == "shell" {
			sc = s
		}
	}
	delta := protocol.AgentMessageDeltaEvent{Delta: "token "}
	events := append([]protocol.EventMsg{}, sc.events[:len(sc.events)-1]...)
	for range 1000 {
		events = append(events, delta)
	}
	events = append(events, sc.events[len(sc.events)-1])
	benchWriter(b, events, func() eventHandler { return NewJSONWriter(io.Discard) })
}

type eventHandler interface{ Handle(protocol.Event) error }

// benchWriter runs events through a fresh writer per iteration.
func benchWriter(b *testing.B, events []protocol.EventMsg, newWriter func() eventHandler) {
	b.ReportAllocs()
	for b.Loop() {
		w := newWriter()
		for _, m := range events {
			if err := w.Handle(protocol.Event{ID: "0", Msg: m}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(events))/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkJSONWriterItem measures one item.completed line (agent message).
func BenchmarkJSONWriterItem(b *testing.B) {
	w := NewJSONWriter(io.Discard)
	ev := protocol.Event{ID: "0", Msg: protocol.AgentMessageEvent{Message: "Hello there! This is a reasonably long final answer."}}
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Handle(ev); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// longTurn is a long turn as the engine streams it: reasoning, 40 commands with output
// deltas, 5 patches, plan updates, 2,000 message deltas and the final answer.
func longTurn() []protocol.EventMsg {
	ev := []protocol.EventMsg{
		protocol.SessionConfiguredEvent{SessionID: "s"},
		protocol.TurnStartedEvent{TurnID: "t"},
	}
	for i := range 40 {
		call := "call-" + strconv.Itoa(i)
		argv := []string{"/bin/bash", "-lc", "go test ./pkg" + strconv.Itoa(i)}
		for range 10 {
			ev = append(ev, protocol.AgentReasoningDeltaEvent{Delta: "thinking "})
		}
		ev = append(ev, protocol.AgentReasoningEvent{Text: "Run the tests."},
			protocol.ExecCommandBeginEvent{CallID: call, Command: argv, Cwd: "/w"})
		for range 20 {
			ev = append(ev, protocol.ExecCommandOutputDeltaEvent{CallID: call, Chunk: []byte("ok  \tpkg\t0.01s\n")})
		}
		ev = append(ev, protocol.ExecCommandEndEvent{CallID: call, Command: argv, Cwd: "/w", AggregatedOutput: "ok\n"})
		if i%8 == 0 {
			ev = append(ev, protocol.PatchApplyBeginEvent{CallID: "p" + call, Changes: map[string]protocol.FileChange{"/w/a.go": {Kind: protocol.FileUpdate}}},
				protocol.PatchApplyEndEvent{CallID: "p" + call, Success: true},
				protocol.PlanUpdateEvent{Plan: []protocol.PlanItem{{Step: "fix", Status: protocol.PlanInProgress}}})
		}
	}
	for range 2000 {
		ev = append(ev, protocol.AgentMessageDeltaEvent{Delta: "token "})
	}
	return append(ev, protocol.AgentMessageEvent{Message: "done"},
		protocol.TokenCountEvent{Info: &protocol.TokenUsageInfo{TotalTokenUsage: protocol.TokenUsage{InputTokens: 9000, OutputTokens: 3000}}},
		protocol.TurnCompleteEvent{TurnID: "t"})
}

// BenchmarkJSONWriterLongTurn is exec --json over a long turn (about 3,400 events).
func BenchmarkJSONWriterLongTurn(b *testing.B) {
	benchWriter(b, longTurn(), func() eventHandler { return NewJSONWriter(io.Discard) })
}

// BenchmarkHumanWriterLongTurn is exec's human output over the same turn.
func BenchmarkHumanWriterLongTurn(b *testing.B) {
	benchWriter(b, longTurn(), func() eventHandler { return NewHumanWriter(HumanOptions{}) })
}
