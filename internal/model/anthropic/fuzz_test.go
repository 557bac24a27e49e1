package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/model/sse"
	"github.com/gocodex/gocodex/modelstream"
)

const seedStream = `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":5,"cache_read_input_tokens":3}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"apply_patch","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"input\":\"x\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: ping
data: {"type":"ping"}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}

event: message_stop
data: {"type":"message_stop"}

`

// FuzzDecodeStream feeds arbitrary SSE text through the reader and the event decoder: no
// panic, every failure a classified *model.Error, every item a real one, Completed last.
func FuzzDecodeStream(f *testing.F) {
	f.Add([]byte(seedStream))
	f.Add([]byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"x\"}}\n\n"))
	f.Add([]byte("data: {\"type\":\"content_block_delta\",\"index\":7,\"delta\":{}}\n\n"))
	f.Add([]byte("data: {\"type\":\"content_block_start\",\"index\":0}\n\n"))
	f.Add([]byte("data: not json\n\n"))
	c, err := New(model.ClientOptions{APIKey: "k"})
	if err != nil {
		f.Fatal(err)
	}
	names := toolNames{custom: map[string]bool{"apply_patch": true}, namespaced: map[string][2]string{"mcp__a__b": {"mcp__a", "b"}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		rd := sse.NewReader(bytes.NewReader(data))
		dec := newDecoder(names, "Anthropic", c.classifyEvent)
		var out []modelstream.ResponseEvent
		for i := 0; i < 10000; i++ {
			e, err := rd.Next()
			if err != nil {
				return
			}
			n := len(out)
			var done bool
			out, done, err = dec.decode(e.Type, e.Data, out)
			if err != nil {
				var me *model.Error
				if !errors.As(err, &me) || err.Error() == "" {
					t.Fatalf("unclassified error %T %v", err, err)
				}
				return
			}
			for _, ev := range out[n:] {
				switch ev := ev.(type) {
				case modelstream.OutputItemDone:
					if ev.Item == nil {
						t.Fatal("OutputItemDone without an item")
					}
				case modelstream.Completed:
					if ev.Usage == nil || !done {
						t.Fatalf("Completed %+v done=%v", ev, done)
					}
				}
			}
			if done {
				return
			}
		}
	})
}

// FuzzFastDelta checks the content_block_delta fast path against encoding/json: whatever it
// accepts must read the same index, delta type and value.
func FuzzFastDelta(f *testing.F) {
	f.Add([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hello"}}`))
	f.Add([]byte(`{"type":"content_block_delta","index":12,"delta":{"type":"text_delta","text":"a\"b\\n\u00e9"}}`))
	f.Add([]byte(`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}`))
	f.Add([]byte(`{"type":"content_block_delta","index":2,"delta":{"type":"thinking_delta","thinking":"hm"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fd, ok := parseFastDelta(data)
		if !ok {
			return
		}
		var ev wireEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			t.Fatalf("fast path accepted %q, encoding/json rejects it: %v", data, err)
		}
		if ev.Index == nil || *ev.Index != fd.index || ev.Delta == nil || ev.Delta.Type != fd.typ {
			t.Fatalf("fast path read %+v from %q", fd, data)
		}
		want := map[string]string{"text_delta": ev.Delta.Text, "thinking_delta": ev.Delta.Thinking, "input_json_delta": ev.Delta.PartialJSON}[fd.typ]
		if want != fd.value {
			t.Fatalf("fast path value %q, encoding/json %q (data %q)", fd.value, want, data)
		}
	})
}
