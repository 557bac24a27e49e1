package protocol

import (
	"os"
	"testing"
)

func benchDecode(b *testing.B, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	var ev Event
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := ev.UnmarshalJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeDelta(b *testing.B) { benchDecode(b, "testdata/event_agent_message_delta.json") }

func BenchmarkDecodeExecEnd(b *testing.B) { benchDecode(b, "testdata/event_exec_command_end.json") }

func BenchmarkEncodeDelta(b *testing.B) {
	ev := Event{ID: "1", Msg: AgentMessageDeltaEvent{Delta: "token "}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(ev); err != nil {
			b.Fatal(err)
		}
	}
}
