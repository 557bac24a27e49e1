package rollout

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/protocol"
)

// agreeWithJSON fails when fast accepted data and encoding/json rejects it or decodes it
// otherwise.
func agreeWithJSON[T any](t *testing.T, name string, data []byte, fast func([]byte) (T, bool)) {
	t.Helper()
	got, ok := fast(data)
	if !ok {
		return
	}
	var want T
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("%s accepted what encoding/json rejects (%v): %q", name, err, data)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: one pass %+v, encoding/json %+v for %q", name, got, want, data)
	}
}

// FuzzReplayDecoders: whenever a one-pass replay decoder accepts a payload, it agrees with
// encoding/json.
func FuzzReplayDecoders(f *testing.F) {
	for _, path := range []string{"../host/threads/testdata/gocodex-turn.jsonl", "testdata/codex-0.169.jsonl"} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if l, ok := parseLine(sc.Bytes()); ok && l.Type == TypeEventMsg {
				f.Add(bytes.Clone(l.Payload))
				if head, ok := completedItemOf(l.Payload); ok && len(head.Item) > 0 {
					f.Add(bytes.Clone(head.Item))
				}
			}
		}
	}
	f.Add([]byte(`{"type":"token_count","info":null,"rate_limits":{"primary":{"used_percent":1.5e1,"window_minutes":300,"resets_at":null},"credits":{"has_credits":true,"unlimited":false,"balance":"\u0031"},"individual_limit":[1,{"a":null}],"spend_control_reached":false}}`))
	f.Add([]byte(`{"type":"UserMessage","id":"u","content":[{"type":"text","text":"a\nb","text_elements":[null,{"x":1}]},{"type":"image","image_url":"data:"},{"type":"local_image","path":"/p"}]}`))
	f.Add([]byte(`{"type":"AgentMessage","id":"a","content":[{"type":"Text","text":"\"hi\""}],"phase":"final_answer","Phase":"x"}`))
	f.Add([]byte(`{"type":"item_completed","item":{"type":"UserMessage"},"item":null}`))
	f.Add([]byte(`{"type":"task_started","turn_attribution":{"turn_id":"t","turn_trigger":"exec","parent_turn_id":null,"initiating_agent_path":"a","root_turn_id":"t"},"turn_id":"t","started_at":-3,"model_context_window":null}`))
	f.Add([]byte(`{"type":"task_complete","turn_id":"t","last_agent_message":"\u00e9","error":{"message":"m","codex_error_info":{"k":[1]}},"duration_ms":10,"completed_at":1e3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		agreeWithJSON(t, "decodeTokenCount", data, decodeTokenCount)
		agreeWithJSON(t, "decodeUserMessageItem", data, decodeUserMessageItem)
		agreeWithJSON(t, "decodeAgentMessageItem", data, decodeAgentMessageItem)
		agreeWithJSON(t, "completedItemOf", data, completedItemOf)
		agreeWithJSON(t, "decodeTurnStarted", data, decodeTurnStarted)
		agreeWithJSON(t, "decodeTurnComplete", data, decodeTurnComplete)
	})
}

// TestReplayDecodersTakeTheRecordedLines: the one-pass decoders read every token_count and
// message item of a recorded gocodex turn and of Codex 0.169's rollout (the fuzz target
// checks they read them right), so a long thread's replay does not fall back to
// encoding/json.
func TestReplayDecodersTakeTheRecordedLines(t *testing.T) {
	for _, path := range []string{"../host/threads/testdata/gocodex-turn.jsonl", "testdata/codex-0.169.jsonl"} {
		r, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i, l := range r.Lines {
			if l.Type != TypeEventMsg {
				continue
			}
			var ok bool
			switch peekType(l.Payload) {
			case "token_count", "task_started", "task_complete":
				_, ok = decodeEvent(peekType(l.Payload), l.Payload)
			case "item_completed":
				head, _ := completedItemOf(l.Payload)
				switch peekType(head.Item) {
				case "UserMessage":
					_, ok = decodeUserMessageItem(head.Item)
				case "AgentMessage":
					_, ok = decodeAgentMessageItem(head.Item)
				default:
					continue
				}
			default:
				continue
			}
			n++
			if !ok {
				t.Errorf("%s line %d: the one-pass decoder declined %s", path, i+1, l.Payload)
			}
		}
		if n < 3 {
			t.Errorf("%s: only %d payloads checked", path, n)
		}
	}
}

// TestReplayDecodersKnowEveryField: each one-pass decoder reads exactly the JSON members of
// its type, so a field added to one of them fails here rather than being skipped on the
// fast path.
func TestReplayDecodersKnowEveryField(t *testing.T) {
	for _, c := range []struct {
		v    any
		keys []string
	}{
		{userMessageItem{}, userMessageKeys},
		{userInput{}, userInputKeys},
		{agentMessageItem{}, agentMessageKeys},
		{agentMessagePart{}, typeTextKeys},
		{protocol.TokenCountEvent{}, tokenCountKeys},
		{protocol.TokenUsageInfo{}, tokenUsageInfoKeys},
		{protocol.TokenUsage{}, tokenUsageKeys},
		{protocol.RateLimitSnapshot{}, rateLimitKeys},
		{protocol.RateLimitWindow{}, rateLimitWindowKeys},
		{protocol.CreditsSnapshot{}, creditsKeys},
		{protocol.TurnStartedEvent{}, turnStartedKeys},
		{protocol.TurnAttribution{}, turnAttributionKeys},
		{protocol.TurnCompleteEvent{}, turnCompleteKeys},
		{protocol.TurnError{}, turnErrorKeys},
		{Line{}, envelopeKeys},
		{completedItem{}, completedItemKeys},
	} {
		typ := reflect.TypeOf(c.v)
		var names []string
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || f.Anonymous || name == "-" {
				t.Fatalf("%s.%s: the decoders read plain tagged fields only", typ, f.Name)
			}
			if name == "" {
				name = f.Name
			}
			names = append(names, name)
		}
		if !slices.Equal(names, c.keys) {
			t.Errorf("%s has the members %q, its decoder reads %q", typ, names, c.keys)
		}
		if reflect.PointerTo(typ).Implements(reflect.TypeFor[json.Unmarshaler]()) {
			t.Errorf("%s decodes itself (UnmarshalJSON); the one-pass decoder would bypass it", typ)
		}
	}
}
