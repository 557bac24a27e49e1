package model

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func decodeBoth(data []byte) (fast wireEvent, fastErr error, std wireEvent, stdErr error) {
	var sc wireScratch
	fastErr = decodeWire(data, &fast, &sc)
	if fastErr == errFallback {
		fast = wireEvent{}
		fastErr = json.Unmarshal(data, &fast)
	}
	stdErr = json.Unmarshal(data, &std)
	return
}

func TestDecodeWireMatchesEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":2,"delta":"hi","logprobs":[],"sequence_number":5}`,
		`{"type":"response.output_item.done","item":{"type":"message","content":[{"a":[1,2.5e3,-0,true,false,null]}]}}`,
		` { "delta" : "a\"b\u00e9\n" } `,
		`{"delta":null,"item":null}`,
		`{"Delta":"case"}`,
		`{"delta":5}`,
		`{"summary_index":1.0}`,
		`{"summary_index":"1"}`,
		`{"summary_index":99999999999999999999}`,
		`{"delta":"x","delta":"y"}`,
		`{"delta":"\xff"}`,
		`{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":"\x01"}`, `{"a":"\q"}`, `{"a":1}x`, `{"a" 1}`, `{"a":[1,]}`, `{,}`, `[]`, ``, `{}`,
		`{"response":{"id":"r","usage":{"input_tokens":1}}}`,
	} {
		fast, fe, std, se := decodeBoth([]byte(in))
		if (fe == nil) != (se == nil) {
			t.Errorf("%s: fast err %v, std err %v", in, fe, se)
			continue
		}
		if se == nil {
			if diff := cmp.Diff(std, fast); diff != "" {
				t.Errorf("%s (-std +fast):\n%s", in, diff)
			}
		}
	}
}

func FuzzDecodeWire(f *testing.F) {
	f.Add([]byte(`{"type":"response.output_text.delta","item_id":"m","delta":"hi","summary_index":3}`))
	f.Add([]byte(`{"type":"x","item":{"a":[1,{"b":"c"}]},"response":null}`))
	f.Add([]byte(`{"delta":"\u00e9\ud83d\ude00"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, fe, std, se := decodeBoth(data)
		if (fe == nil) != (se == nil) {
			t.Fatalf("%q: fast err %v, std err %v", data, fe, se)
		}
		if se == nil {
			if diff := cmp.Diff(std, fast); diff != "" {
				t.Fatalf("%q (-std +fast):\n%s", data, diff)
			}
		}
	})
}

func BenchmarkDecodeDelta(b *testing.B) {
	data := []byte(`{"type":"response.output_text.delta","item_id":"msg_0123456789","output_index":0,"content_index":0,"delta":"hello world ","sequence_number":12}`)
	b.Run("fast", func(b *testing.B) {
		var ev wireEvent
		var sc wireScratch
		b.ReportAllocs()
		for b.Loop() {
			if err := decodeWire(data, &ev, &sc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var ev wireEvent
			if err := json.Unmarshal(data, &ev); err != nil {
				b.Fatal(err)
			}
		}
	})
}
