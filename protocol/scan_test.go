package protocol

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestObjectMembers(t *testing.T) {
	var keys []string
	var vals []string
	err := ObjectMembers([]byte(` {"a" : 1 ,"b\u0041":{"x":[1,"}"]},"c":"s\"q", "d":null} `), func(k string, v []byte) bool {
		keys, vals = append(keys, k), append(vals, string(v))
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "bA", "c", "d"}; !equal(keys, want) {
		t.Errorf("keys = %q, want %q", keys, want)
	}
	if want := []string{"1", `{"x":[1,"}"]}`, `"s\"q"`, "null"}; !equal(vals, want) {
		t.Errorf("values = %q, want %q", vals, want)
	}

	// Stopping early reads nothing after the member: a truncated object still yields it.
	var id string
	if err := ObjectMembers([]byte(`{"jsonrpc":"2.0","id":7,"params":{"trunc`), func(k string, v []byte) bool {
		if k == "id" {
			id = string(v)
			return false
		}
		return true
	}); err != nil || id != "7" {
		t.Errorf("early stop: id %q, err %v", id, err)
	}
	for _, bad := range []string{``, `[]`, `{"a"}`, `{"a":1,}`, `{"a":1 "b":2}`, `{"a":"x`, `{a:1}`} {
		if err := ObjectMembers([]byte(bad), func(string, []byte) bool { return true }); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if err := ObjectMembers([]byte(`{}`), func(string, []byte) bool { t.Error("member of {}"); return true }); err != nil {
		t.Error(err)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzObjectMembers: never panics, and on a valid object yields exactly the members
// encoding/json sees, in order.
func FuzzObjectMembers(f *testing.F) {
	for _, s := range []string{`{"type":"x","a":[1,{"b":"]"}]}`, `{"k\n":"v"}`, `{"a":1`, `{}`, ` {"a" : true } `, `{"a":"\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var keys []string
		var vals [][]byte
		err := ObjectMembers(data, func(k string, v []byte) bool {
			keys, vals = append(keys, k), append(vals, v)
			return true
		})
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) != nil || bytes.TrimSpace(data)[0] != '{' {
			return
		}
		if err != nil {
			t.Fatalf("valid object %q: %v", data, err)
		}
		for i, k := range keys {
			if !json.Valid(vals[i]) {
				t.Fatalf("%q: member %q has value %q", data, k, vals[i])
			}
			if _, ok := m[k]; !ok {
				t.Fatalf("%q: key %q not seen by encoding/json", data, k)
			}
		}
	})
}
