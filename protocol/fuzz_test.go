package protocol

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seedFromGolden adds the "op"/"msg" part of every golden envelope as a seed.
func seedFromGolden(f *testing.F, prefix, key string) {
	files, _ := filepath.Glob(filepath.Join("testdata", prefix+"*.json"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		var env map[string]json.RawMessage
		if json.Unmarshal(data, &env) == nil && env[key] != nil {
			f.Add([]byte(env[key]))
		}
	}
}

func FuzzDecodeOp(f *testing.F) {
	seedFromGolden(f, "op_", "op")
	f.Add([]byte(`{"type":"user_turn","sandbox_policy":{"mode":"workspace-write"},"approval_policy":{"reject":{}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		op, err := DecodeOp(data)
		if err != nil {
			return
		}
		b1, err := Marshal(op)
		if err != nil {
			t.Fatalf("re-encode %T: %v", op, err)
		}
		op2, err := DecodeOp(b1)
		if err != nil {
			t.Fatalf("decode of re-encoded %s: %v", b1, err)
		}
		if diff := cmp.Diff(op, op2, cmpOpts); diff != "" {
			t.Fatalf("round trip changed the value (-first +second):\n%s", diff)
		}
	})
}

func FuzzDecodeEventMsg(f *testing.F) {
	seedFromGolden(f, "event_", "msg")
	if data, err := os.ReadFile("testdata/codex0169/event_msgs.jsonl"); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			f.Add([]byte(l))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msg, err := DecodeEventMsg(data)
		if err != nil {
			return
		}
		b1, err := MarshalEventMsg(msg)
		if err != nil {
			t.Fatalf("re-encode %T: %v", msg, err)
		}
		msg2, err := DecodeEventMsg(b1)
		if err != nil {
			t.Fatalf("decode of re-encoded %s: %v", b1, err)
		}
		if diff := cmp.Diff(msg, msg2, cmpOpts); diff != "" {
			t.Fatalf("round trip changed the value (-first +second):\n%s", diff)
		}
	})
}
