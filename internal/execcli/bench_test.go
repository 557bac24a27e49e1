package execcli

import (
	"io"
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
	b.ReportAllocs()
	for b.Loop() {
		w := NewJSONWriter(io.Discard)
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
