package tui

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/protocol"
)

// scriptedTurn plays one turn as the engine sends it: the message, a reasoning summary, a
// command with output, a streamed answer, the token count, the end.
func scriptedTurn(m *Model, n int) {
	send := func(msg tea.Msg) { m.Update(msg) }
	ev := func(e protocol.EventMsg) { send(eventMsg{ev: protocol.Event{ID: "1", Msg: e}}) }
	text := fmt.Sprintf("turn %d: please look at the parser and fix the off-by-one", n)
	send(submitMsg{text: text})
	ev(protocol.TurnStartedEvent{TurnID: "t"})
	ev(protocol.AgentReasoningEvent{Text: "**Looking** at the parser before changing it"})
	argv := []string{"bash", "-lc", "go test ./parser"}
	ev(protocol.ExecCommandBeginEvent{CallID: "c", Command: argv})
	for i := range 5 {
		ev(protocol.ExecCommandOutputDeltaEvent{CallID: "c", Chunk: fmt.Appendf(nil, "=== RUN TestCase%d\n", i)})
	}
	ev(protocol.ExecCommandEndEvent{CallID: "c", Command: argv, AggregatedOutput: "ok  parser 0.01s\n"})
	var answer strings.Builder
	for i := range 20 {
		d := fmt.Sprintf("word%d ", i)
		answer.WriteString(d)
		ev(protocol.AgentMessageDeltaEvent{Delta: d})
		if i%5 == 0 {
			m.View()
		}
	}
	ev(protocol.AgentMessageEvent{Message: answer.String()})
	window := int64(272000)
	ev(protocol.TokenCountEvent{Info: &protocol.TokenUsageInfo{ModelContextWindow: &window,
		TotalTokenUsage: protocol.TokenUsage{TotalTokens: int64(n) * 1000}, LastTokenUsage: protocol.TokenUsage{TotalTokens: 20000}}})
	ev(protocol.TurnCompleteEvent{TurnID: "t"})
	m.View()
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// BenchmarkMemory500Turns plays 500 scripted turns through the UI and reports the heap in
// use after 10 and after 500 turns (the whole test process's heap, as a person's process
// would hold it), their ratio, and what each turn keeps.
//
//	go test ./internal/tui -run '^$' -bench Memory500 -benchtime 1x
func BenchmarkMemory500Turns(b *testing.B) {
	for _, mode := range []string{"inline", "altscreen"} {
		b.Run(mode, func(b *testing.B) {
			for range b.N {
				eng := newFakeEngine()
				m := NewModel(eng, Header{Model: "gpt-test", Cwd: "/work/project"}, "")
				m.inline = mode == "inline"
				m.scrollback = func(string) {} // the terminal keeps the scrollback, not us
				m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
				for n := range 10 {
					scriptedTurn(m, n)
					eng.takeOps()
				}
				at10 := heapInUse()
				for n := 10; n < 500; n++ {
					scriptedTurn(m, n)
					eng.takeOps()
				}
				at500 := heapInUse()
				runtime.KeepAlive(m)
				b.ReportMetric(float64(at10)/(1<<20), "MiB@10")
				b.ReportMetric(float64(at500)/(1<<20), "MiB@500")
				b.ReportMetric(float64(at500)/float64(at10), "ratio")
				b.ReportMetric(float64(at500-min(at500, at10))/490, "B/turn")
			}
		})
	}
}

// BenchmarkViewLargeTranscript is the frame time with a 10,000-line transcript while an
// answer streams: one delta, one View, as the program does per frame.
//
//	go test ./internal/tui -run '^$' -bench ViewLarge
func BenchmarkViewLargeTranscript(b *testing.B) {
	for _, mode := range []string{"inline", "altscreen"} {
		b.Run(mode, func(b *testing.B) {
			m := NewModel(newFakeEngine(), Header{Model: "gpt-test", Cwd: "/work/project"}, "")
			m.inline = mode == "inline"
			m.scrollback = func(string) {}
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			para := strings.TrimSuffix(strings.Repeat("a line of the earlier conversation, long enough to matter\n", 9), "\n")
			for i := range 1001 { // 1001 cells of 9 lines and their separators: 10k lines
				m.tr.add(cell{kind: cellAgent, body: fmt.Sprintf("%d ", i) + para})
			}
			m.refresh()
			m.Update(eventMsg{ev: protocol.Event{Msg: protocol.TurnStartedEvent{}}})
			m.View()
			if lines := m.vp.count(); mode == "altscreen" && lines < 10000 {
				b.Fatalf("transcript has %d lines, want 10,000", lines)
			}
			b.ResetTimer()
			for i := range b.N {
				if i%100 == 99 { // answers of 100 deltas, so the frame measures the transcript, not one huge answer
					m.Update(eventMsg{ev: protocol.Event{Msg: protocol.AgentMessageEvent{Message: "done"}}})
				}
				m.Update(eventMsg{ev: protocol.Event{Msg: protocol.AgentMessageDeltaEvent{Delta: fmt.Sprintf("w%d ", i%10)}}})
				m.View()
			}
		})
	}
}
