package mcpserver

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestUnescapeHTML(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"text":"\u003cb\u003e \u0026 \u003c/b\u003e"}`, `{"text":"<b> & </b>"}`},
		{`{"text":"a\\u003cb"}`, `{"text":"a\\u003cb"}`}, // an escaped backslash, then plain text
		{`{"text":"\"\u003c\""}`, `{"text":"\"<\""}`},
		{`{"text":"\u00e9\n"}`, `{"text":"\u00e9\n"}`},
		{`{"\u003ckey\u003e":1}`, `{"<key>":1}`},
		{`{"line":"\u2028"}`, "{\"line\":\"\u2028\"}"},
		{`[1,2,"x"]`, `[1,2,"x"]`},
	}
	for _, tc := range cases {
		if got := string(unescapeHTML([]byte(tc.in))); got != tc.want {
			t.Errorf("unescapeHTML(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// FuzzUnescapeHTML: for any JSON value, the result decodes to the same value.
func FuzzUnescapeHTML(f *testing.F) {
	for _, s := range []string{"<b>&</b>", `a\u003cb`, "\u2028", `"quoted"`, `back\slash`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		in, err := json.Marshal(map[string]any{s: []any{s, 1.5, nil}})
		if err != nil {
			return
		}
		var want, got any
		if err := json.Unmarshal(in, &want); err != nil {
			t.Fatal(err)
		}
		out := unescapeHTML(in)
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s -> %s: %v", in, out, err)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("%s -> %s changed the value", in, out)
		}
	})
}
