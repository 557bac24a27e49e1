package items

import (
	"testing"

	"github.com/gocodex/gocodex/protocol"
)

// benchTurn is a long turn: 40 rounds of reasoning deltas, a command and its output deltas,
// then 2,000 message deltas and the answer (about 3,400 events).
func benchTurn() []protocol.EventMsg {
	ev := []protocol.EventMsg{eventFor(23, 0, "c0", "")}
	for round := range 40 {
		call := "c" + string(rune('a'+round%26)) + string(rune('a'+round/26))
		for range 10 {
			ev = append(ev, eventFor(2, 0, call, "think"))
		}
		ev = append(ev, eventFor(4, 0, call, "Run it."), eventFor(8, 0, call, "go"))
		for range 20 {
			ev = append(ev, eventFor(9, 0, call, "ok  \tpkg\t0.01s\n"))
		}
		ev = append(ev, eventFor(10, 0, call, "go"))
	}
	for range 2000 {
		ev = append(ev, eventFor(0, 0, "", "token "))
	}
	return append(ev, eventFor(1, 0, "", "done"), eventFor(24, 0, "", ""))
}

// BenchmarkFoldLongTurn folds a long turn's events, every delta included.
func BenchmarkFoldLongTurn(b *testing.B) {
	events := benchTurn()
	b.ReportAllocs()
	for b.Loop() {
		f := NewFold(FoldOptions{})
		for _, m := range events {
			f.Apply(m)
		}
	}
	b.ReportMetric(float64(b.N*len(events))/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkProjectorLongTurn is the exec --json projection of the same turn.
func BenchmarkProjectorLongTurn(b *testing.B) {
	events := benchTurn()
	b.ReportAllocs()
	for b.Loop() {
		p := NewProjector()
		for _, m := range events {
			p.Apply(m)
		}
	}
	b.ReportMetric(float64(b.N*len(events))/b.Elapsed().Seconds(), "events/s")
}
