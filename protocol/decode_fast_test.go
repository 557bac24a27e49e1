package protocol

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func seedItems(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "item_*.json"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, it := range benchHistory(6) {
		data, err := Marshal(it)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"type":"message","id":1,"Role":"user","content":[{"type":"input_text","text":"a\nb"}],"end_turn":null}`))
	f.Add([]byte(`{"type":"reasoning","summary":[{"type":"summary_text","text":"x"}],"summary":[{"text":"y"}],"encrypted_content":"e"}`))
	f.Add([]byte(`{"type":"custom_tool_call_output","call_id":"c","output":[{"type":"input_text","text":"\u00e9"}]}`))
	f.Add([]byte(`{"type":"input_image","image_url":"u","detail":"high","extra":1}`))
	f.Add([]byte(`{"type":"output_text","text":"a \"long\" answer\n","annotations":[{"type":"url_citation","url":"u","start_index":0}],"logprobs":[]}`))
	f.Add([]byte(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"x","annotations":[]}]}`))
}

// FuzzDecodeResponseItemPaths checks the one-pass decoders against encoding/json: whenever
// the fast path accepts an input, the general path must accept it with the same value.
func FuzzDecodeResponseItemPaths(f *testing.F) {
	seedItems(f)
	f.Add([]byte(`{"a":[1,-0.5e+3,true,false,null,"\u00e9\ud800"],"b":{}} `))
	f.Add([]byte(`[01]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		start := skipSpace(data, 0)
		end, ok := skipValid(data, start, 0)
		ok = ok && skipSpace(data, end) == len(data)
		if ok != json.Valid(data) && bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) < maxFastDepth {
			t.Fatalf("skipValid says %v, json.Valid says %v", ok, !ok)
		}
		if tag, err := readTag(data, "type"); err == nil {
			if fast, ok := decodeItemFast(tag, data); ok {
				slow, err := decodeResponseItemSlow(tag, data)
				if err != nil {
					t.Fatalf("fast path accepted what the general path rejects: %v", err)
				}
				if diff := cmp.Diff(slow, fast); diff != "" {
					t.Fatalf("paths differ (-general +fast):\n%s", diff)
				}
			}
		}
		if w, tag, ok := decodeContentFast(data); ok {
			slowTag, err := readTag(data, "type")
			if err != nil {
				t.Fatalf("fast content path accepted a missing tag: %v", err)
			}
			var sw contentWire
			if err := json.Unmarshal(data, &sw); err != nil {
				t.Fatalf("fast content path accepted what encoding/json rejects: %v", err)
			}
			if diff := cmp.Diff([]any{slowTag, sw}, []any{tag, w}); diff != "" {
				t.Fatalf("content paths differ (-general +fast):\n%s", diff)
			}
		}
	})
}
