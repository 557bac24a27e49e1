package appserver

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// paramsRequired names, per method, the required fields of its params object in the
// reference schema, no more and no fewer.
func TestParamsRequiredMatchesSchema(t *testing.T) {
	b, err := os.ReadFile("schematest/schema/codex_app_server_protocol.schemas.json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	var cr struct {
		OneOf []struct {
			Properties struct {
				Method struct {
					Enum []string `json:"enum"`
				} `json:"method"`
				Params struct {
					Ref string `json:"$ref"`
				} `json:"params"`
			} `json:"properties"`
		} `json:"oneOf"`
	}
	if err := json.Unmarshal(s.Definitions["ClientRequest"], &cr); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{}
	for _, v := range cr.OneOf {
		ref := v.Properties.Params.Ref
		if ref == "" {
			continue
		}
		var def json.RawMessage
		for i, part := range strings.Split(strings.TrimPrefix(ref, "#/definitions/"), "/") {
			var m map[string]json.RawMessage
			src := s.Definitions
			if i > 0 {
				if err := json.Unmarshal(def, &m); err != nil {
					t.Fatal(err)
				}
				src = m
			}
			def = src[part]
		}
		var d struct {
			Type     any      `json:"type"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(def, &d); err != nil {
			t.Fatal(err)
		}
		if d.Type == "object" && len(d.Required) > 0 {
			want[v.Properties.Method.Enum[0]] = d.Required
		}
	}
	for m, req := range want {
		got := slices.Clone(paramsRequired[m])
		slices.Sort(got)
		slices.Sort(req)
		if !slices.Equal(got, req) {
			t.Errorf("%s: paramsRequired %v, schema %v", m, paramsRequired[m], req)
		}
	}
	for m := range paramsRequired {
		if want[m] == nil {
			t.Errorf("%s: in paramsRequired, not in the schema", m)
		}
	}
}

// A request lacking a required field is refused after the decode, before the handler runs.
func TestMissingRequiredField(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{`{}`, "Invalid request: missing field `threadId`"},
		{`{"threadId":"x"}`, "Invalid request: missing field `input`"},
		{`{"threadId":"x","input":[]}`, ""},
		{`[1]`, ""}, // not an object: the decode answers
	} {
		err := missingRequired(json.RawMessage(c.raw), paramsRequired["turn/start"])
		if got := errText(err); got != c.want {
			t.Errorf("%s: %q, want %q", c.raw, got, c.want)
		}
	}
}

func errText(err error) string {
	if e, ok := err.(*jsonrpc.Error); ok {
		return e.Message
	}
	if err != nil {
		return err.Error()
	}
	return ""
}
