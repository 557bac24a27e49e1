package chat

import (
	"encoding/json"
	"testing"

	"github.com/gocodex/gocodex/internal/testkit"
)

// FuzzChunk feeds arbitrary payloads to the chunk decoder, twice in a row (so fragments of
// one call meet), then finishes the reply: it must never panic, and whatever it accepts must
// come out as items the engine can record.
func FuzzChunk(f *testing.F) {
	for _, p := range []testkit.ChatPart{
		testkit.ChatText("hi"), testkit.ChatReasoning("r"), testkit.ChatReasoningField("r"),
		testkit.ChatToolCall(0, "call_a", "shell"), testkit.ChatToolArgs(0, `{"a":1}`),
		testkit.ChatToolCall(1, "call_b", "apply_patch"), testkit.ChatToolArgs(1, `{"input":"x"}`),
		testkit.ChatFinish("stop"), testkit.ChatFinish("length"), testkit.ChatUsage(testkit.Usage{Input: 1, Output: 2}), testkit.ChatDone(),
		{`{"error":"x"}`}, {`{"error":{"code":"rate_limit_exceeded","message":"try again in 1s"}}`},
		{`{"choices":[{"delta":{"tool_calls":[{"id":"c","function":{"name":"f"}}]}}]}`},
		{`{"choices":[{"delta":{"reasoning":{"text":"x"}}}]}`}, {`{"choices":null}`}, {`[]`}, {`"s"`}, {``},
	} {
		f.Add([]byte(p[0]), []byte(testkit.ChatToolArgs(0, `}`)[0]))
	}
	ts, err := translateTools(historyPrompt().Tools)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		r := reply{status: 200}
		for _, data := range [][]byte{a, b} {
			evs, done, err := r.feed(data, ts, "Fuzz")
			if err != nil || done {
				break
			}
			for _, ev := range evs {
				if ev == nil {
					t.Fatal("nil event")
				}
			}
		}
		evs, err := r.finish(ts, "Fuzz")
		if err != nil {
			return
		}
		for _, ev := range evs {
			if _, err := json.Marshal(ev); err != nil {
				t.Fatalf("event %T does not encode: %v", ev, err)
			}
		}
	})
}
