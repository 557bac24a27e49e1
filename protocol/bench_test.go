package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

func benchDecode(b *testing.B, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	var ev Event
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := ev.UnmarshalJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeDelta(b *testing.B) { benchDecode(b, "testdata/event_agent_message_delta.json") }

func BenchmarkDecodeExecEnd(b *testing.B) { benchDecode(b, "testdata/event_exec_command_end.json") }

func BenchmarkEncodeDelta(b *testing.B) {
	ev := Event{ID: "1", Msg: AgentMessageDeltaEvent{Delta: "token "}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(ev); err != nil {
			b.Fatal(err)
		}
	}
}

// benchHistory builds a deterministic n-item history shaped like a long session: user and
// assistant messages, reasoning with encrypted blobs, function calls and their multi-line
// outputs, with the quotes, newlines and angle brackets real transcripts carry.
func benchHistory(n int) []ResponseItem {
	text := strings.Repeat("Line with \"quotes\", <tags> & a tab\tand unicode é → ✓.\n", 8)
	output := strings.Repeat("Exit code: 0\nWall time: 0.1 seconds\nOutput:\n./a.go:12: func main() {}\n", 10)
	blob := strings.Repeat("gAAAAABpZ0xYz1234567890abcdefghijklmnopqrstuvwxyzABCDEFGHIJ_-", 16)
	items := make([]ResponseItem, 0, n)
	for i := 0; len(items) < n; i++ {
		call := fmt.Sprintf("call_%d", i)
		var it ResponseItem
		switch i % 6 {
		case 0:
			it = MessageItem{Role: "user", Content: []ContentItem{{Type: ContentInputText, Text: "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"}, {Type: ContentInputText, Text: text}}}
		case 1:
			it = ReasoningItem{Summary: []ReasoningSummary{{Type: "summary_text", Text: "**Planning** " + text[:120]}}, EncryptedContent: &blob}
		case 2:
			it = FunctionCallItem{Name: "exec_command", Arguments: `{"cmd":"rg -n \"func main\" ./...","workdir":"/repo","yield_time_ms":1000}`, CallID: call}
		case 3:
			it = FunctionCallOutputItem{CallID: call, Output: FunctionCallOutputPayload{Content: output}}
		case 4:
			it = CustomToolCallItem{CallID: call, Name: "apply_patch", Input: "*** Begin Patch\n*** Update File: a.go\n@@\n-old\n+new\n*** End Patch\n"}
		case 5:
			it = MessageItem{Role: "assistant", Content: []ContentItem{{Type: ContentOutputText, Text: text}}, Phase: "commentary"}
		}
		items = append(items, it)
	}
	return items
}

// encodeViaEncoder is what a caller without a fast path does: one json.Encoder call per item.
func encodeViaEncoder(items []ResponseItem) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(it); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

func BenchmarkEncodeHistory(b *testing.B) {
	items := benchHistory(10000)
	b.Run("encoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := encodeViaEncoder(items); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("MarshalItems", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			var err error
			if buf, err = MarshalItems(buf[:0], items); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkDecodeHistory(b *testing.B) {
	items := benchHistory(10000)
	lines := make([][]byte, len(items))
	for i, it := range items {
		data, err := Marshal(it)
		if err != nil {
			b.Fatal(err)
		}
		lines[i] = data
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if _, err := DecodeResponseItem(l); err != nil {
				b.Fatal(err)
			}
		}
	}
}
