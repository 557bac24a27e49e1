package chat

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

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
			evs, done, err := r.feed(nil, data, ts, "Fuzz")
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

// chunkView is what the reply reads from a chunk, for comparing the two decoders.
type chunkView struct {
	ID, Content, Reasoning, Finish []string
	Index                          []int
	Tools                          int
	Usage, Error                   bool
}

func viewOf(c *chunk) chunkView {
	v := chunkView{ID: []string{c.ID}, Usage: c.Usage != nil, Error: len(c.Error) > 0 && string(c.Error) != "null"}
	for i := range c.Choices {
		ch := &c.Choices[i]
		v.Index = append(v.Index, ch.Index)
		v.Content = append(v.Content, ch.Delta.Content)
		v.Reasoning = append(v.Reasoning, ch.Delta.reasoningText())
		v.Finish = append(v.Finish, ch.FinishReason)
		v.Tools += len(ch.Delta.ToolCalls)
	}
	return v
}

// FuzzDecodeFast checks that whenever the fast chunk reader accepts a payload (valid or
// not), encoding/json accepts it too and reads the same.
func FuzzDecodeFast(f *testing.F) {
	for _, p := range []string{
		testkit.ChatText("hi")[0], testkit.ChatText("a\"b\\n\u00e9\U0001F600")[0], testkit.ChatReasoning("r")[0],
		testkit.ChatReasoningField("r")[0], testkit.ChatFinish("stop")[0], testkit.ChatUsage(testkit.Usage{Input: 1})[0],
		`{"id":"x","choices":[{"index":0,"delta":{"content":null,"reasoning":null},"finish_reason":null},null]}`,
		`{"ID":"x"}`, `{"choices":[{"index":01}]}`, `{"choices":[{"index":1e1}]}`, `{"choices":[{"delta":{"content":"a","content":null}}]}`,
		`{"choices":[],"choices":[{"index":2}]}`, `{"choices":[{"delta":{"tool_calls":null},"finish_reason":"stop","finish_reason":null}]}`,
		`{"a\u0069":1,"x":[{"y":"]}"}],"choices":null}`, `{"x":[1,-2.5e+3,true,false,null,{}],"id":"i"} `,
		`{"choices":[{"delta":{"content":"a\x01"}}]}`, `{"id":"a"}x`, `{"x":01}`, `{"x":"\q"}`, `{"x":[1,]}`,
	} {
		f.Add([]byte(p))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast chunk
		var sc scratch
		if !decodeFast(data, &fast, &sc) {
			return
		}
		var slow chunk
		if err := json.Unmarshal(data, &slow); err != nil {
			t.Fatalf("fast reader accepted %q, encoding/json says %v", data, err)
		}
		if diff := cmp.Diff(viewOf(&slow), viewOf(&fast)); diff != "" {
			t.Fatalf("%q read differently (-json +fast):\n%s", data, diff)
		}
	})
}
