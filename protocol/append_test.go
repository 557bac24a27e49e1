package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The reference encoders below are the reflection-based path the fast appenders replaced:
// plain structs with the tag as their first field, encoded by encoding/json with HTML
// escaping off. They use nothing from append.go, so they are an independent oracle.

type refContent ContentItem

func (c refContent) MarshalJSON() ([]byte, error) {
	switch c.Type {
	case ContentInputText, ContentOutputText:
		return Marshal(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{string(c.Type), c.Text})
	case ContentInputImage:
		return Marshal(struct {
			Type     string `json:"type"`
			ImageURL string `json:"image_url"`
			Detail   string `json:"detail,omitempty"`
		}{string(c.Type), c.ImageURL, c.Detail})
	}
	return nil, errors.New("unknown content item type")
}

func refContents(items []ContentItem) []refContent {
	out := make([]refContent, len(items))
	for i, c := range items {
		out[i] = refContent(c)
	}
	return out
}

type refPayload FunctionCallOutputPayload

func (p refPayload) MarshalJSON() ([]byte, error) {
	if p.ContentItems != nil {
		return Marshal(refContents(p.ContentItems))
	}
	return Marshal(p.Content)
}

type refOutput struct {
	Type   string     `json:"type"`
	CallID string     `json:"call_id"`
	Output refPayload `json:"output"`
}

func refMarshalItem(it ResponseItem) ([]byte, error) {
	switch v := it.(type) {
	case MessageItem:
		return Marshal(struct {
			Type    string       `json:"type"`
			Role    string       `json:"role"`
			Content []refContent `json:"content"`
			EndTurn *bool        `json:"end_turn,omitempty"`
			Phase   string       `json:"phase,omitempty"`
		}{"message", v.Role, refContents(v.Content), v.EndTurn, v.Phase})
	case ReasoningItem:
		summary := v.Summary
		if summary == nil {
			summary = []ReasoningSummary{}
		}
		return Marshal(struct {
			Type             string             `json:"type"`
			Summary          []ReasoningSummary `json:"summary"`
			Content          []ReasoningContent `json:"content,omitempty"`
			EncryptedContent *string            `json:"encrypted_content"`
		}{"reasoning", summary, v.Content, v.EncryptedContent})
	case FunctionCallItem:
		return Marshal(struct {
			Type      string `json:"type"`
			Name      string `json:"name"`
			Namespace string `json:"namespace,omitempty"`
			Arguments string `json:"arguments"`
			CallID    string `json:"call_id"`
		}{"function_call", v.Name, v.Namespace, v.Arguments, v.CallID})
	case FunctionCallOutputItem:
		return Marshal(refOutput{"function_call_output", v.CallID, refPayload(v.Output)})
	case CustomToolCallOutputItem:
		return Marshal(refOutput{"custom_tool_call_output", v.CallID, refPayload(v.Output)})
	case CustomToolCallItem:
		return Marshal(struct {
			Type   string `json:"type"`
			Status string `json:"status,omitempty"`
			CallID string `json:"call_id"`
			Name   string `json:"name"`
			Input  string `json:"input"`
		}{"custom_tool_call", v.Status, v.CallID, v.Name, v.Input})
	case CompactionItem:
		return Marshal(struct {
			Type             string `json:"type"`
			EncryptedContent string `json:"encrypted_content"`
		}{"compaction", v.EncryptedContent})
	case OtherItem:
		if len(v.Raw) == 0 {
			return []byte(`{"type":"other"}`), nil
		}
		return Marshal(v.Raw)
	}
	return Marshal(it)
}

func refMarshalItems(items []ResponseItem) ([]byte, error) {
	parts := make([][]byte, len(items))
	for i, it := range items {
		b, err := refMarshalItem(it)
		if err != nil {
			return nil, err
		}
		parts[i] = b
	}
	return append(append([]byte{'['}, bytes.Join(parts, []byte{','})...), ']'), nil
}

// checkAgree fails unless the fast path, the reference path and Marshal (through the
// variants' MarshalJSON) give the same bytes, or all fail.
func checkAgree(t *testing.T, items []ResponseItem) {
	t.Helper()
	want, refErr := refMarshalItems(items)
	got, err := MarshalItems(nil, items)
	if (err != nil) != (refErr != nil) {
		t.Fatalf("MarshalItems error %v, reference error %v", err, refErr)
	}
	if err != nil {
		return
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("MarshalItems differs from the reference\n got: %s\nwant: %s", got, want)
	}
	viaEncoder, err := encodeViaEncoder(items)
	if err != nil {
		t.Fatalf("encoder: %v", err)
	}
	if !bytes.Equal(viaEncoder, want) {
		t.Fatalf("encoding/json over MarshalJSON differs from the reference\n got: %s\nwant: %s", viaEncoder, want)
	}
}

func TestMarshalItemsGoldens(t *testing.T) {
	var all []ResponseItem
	for _, tc := range goldenCases() {
		it, ok := tc.value.(ResponseItem)
		if !ok {
			continue
		}
		all = append(all, it)
		t.Run(tc.name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", tc.name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := AppendResponseItem([]byte("prefix"), it)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(bytes.TrimRight(want, "\n")), strings.TrimPrefix(string(got), "prefix")); diff != "" {
				t.Errorf("AppendResponseItem vs golden (-want +got):\n%s", diff)
			}
			checkAgree(t, []ResponseItem{it})
		})
	}
	checkAgree(t, all)
	checkAgree(t, benchHistory(60))
}

func TestMarshalItemsEdgeCases(t *testing.T) {
	weird := "a\x00b\x1f\b\f\n\r\t\"\\<>&\u2028\u2029\x7f\xff\xc3é✓ end"
	f := false
	tests := []struct {
		name  string
		items []ResponseItem
	}{
		{"empty", nil},
		{"nil item", []ResponseItem{nil}},
		{"pointer item", []ResponseItem{&MessageItem{Role: "user"}}},
		{"nil content", []ResponseItem{MessageItem{Role: weird, EndTurn: &f}}},
		{"weird strings", []ResponseItem{
			MessageItem{Role: weird, Content: []ContentItem{{Type: ContentInputText, Text: weird}, {Type: ContentInputImage, ImageURL: weird, Detail: weird}}, Phase: weird},
			ReasoningItem{Summary: []ReasoningSummary{{Type: weird, Text: weird}}, Content: []ReasoningContent{{Type: weird, Text: weird}}, EncryptedContent: &weird},
			FunctionCallItem{Name: weird, Namespace: weird, Arguments: weird, CallID: weird},
			FunctionCallOutputItem{CallID: weird, Output: FunctionCallOutputPayload{Content: weird}},
			CustomToolCallItem{Status: weird, CallID: weird, Name: weird, Input: weird},
			CustomToolCallOutputItem{CallID: weird, Output: FunctionCallOutputPayload{ContentItems: []ContentItem{}}},
			CompactionItem{EncryptedContent: weird},
		}},
		{"other raw with spaces", []ResponseItem{OtherItem{Raw: json.RawMessage(" {\"type\" : \"x\", \"a\" : [1, 2]} ")}, OtherItem{}}},
		{"local shell and web search", []ResponseItem{
			LocalShellCallItem{Status: "completed", Action: LocalShellAction{Type: "exec", Env: map[string]string{"b": "1", "a": "<2>"}}},
			WebSearchCallItem{Action: json.RawMessage(`{ "type": "search" }`)},
		}},
		{"unknown content type", []ResponseItem{MessageItem{Role: "user", Content: []ContentItem{{Type: "bogus"}}}}},
		{"invalid other raw", []ResponseItem{OtherItem{Raw: json.RawMessage(`{"type":`)}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkAgree(t, tc.items) })
	}
}

// FuzzMarshalItems feeds arbitrary strings into every fast-path field and checks the fast
// path against the reference encoder.
func FuzzMarshalItems(f *testing.F) {
	f.Add("user", "hello <b>", "{\"cmd\":\"ls\"}", "", true)
	f.Add("\u2028", "\xff\x00\"\\", "\t\n", "low", false)
	f.Fuzz(func(t *testing.T, a, b, c, d string, flag bool) {
		var ec *string
		if flag {
			ec = &c
		}
		var items []ContentItem
		if flag {
			items = []ContentItem{{Type: ContentInputImage, ImageURL: a, Detail: d}}
		}
		checkAgree(t, []ResponseItem{
			MessageItem{Role: a, Content: []ContentItem{{Type: ContentOutputText, Text: b}, {Type: ContentInputImage, ImageURL: c, Detail: d}}, EndTurn: &flag, Phase: d},
			ReasoningItem{Summary: []ReasoningSummary{{Type: a, Text: b}}, Content: []ReasoningContent{{Type: c, Text: d}}, EncryptedContent: ec},
			FunctionCallItem{Name: a, Namespace: d, Arguments: b, CallID: c},
			FunctionCallOutputItem{CallID: a, Output: FunctionCallOutputPayload{Content: b, ContentItems: items}},
			CustomToolCallItem{Status: d, CallID: a, Name: b, Input: c},
			CustomToolCallOutputItem{CallID: d, Output: FunctionCallOutputPayload{Content: a}},
			CompactionItem{EncryptedContent: b},
		})
	})
}

// FuzzDecodeResponseItem decodes arbitrary input; whatever decodes must re-encode the same way
// on both encoding paths and decode back to the same value.
func FuzzDecodeResponseItem(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "item_*.json"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"id":"msg_1","type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}`))
	f.Add([]byte(`{"type":"reasoning","id":7,"summary":[],"encrypted_content":null}`))
	f.Add([]byte(`{"type":"function_call_output","call_id":"c","output":{"content":"ok","success":true}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		it, err := DecodeResponseItem(data)
		if err != nil {
			return
		}
		checkAgree(t, []ResponseItem{it})
		b1, err := MarshalItems(nil, []ResponseItem{it})
		if err != nil {
			return // e.g. a content item of an unknown type cannot be written back
		}
		it2, err := DecodeResponseItem(b1[1 : len(b1)-1])
		if err != nil {
			t.Fatalf("decode of re-encoded %s: %v", b1, err)
		}
		if diff := cmp.Diff(clearIDs(it), it2, cmpOpts); diff != "" {
			t.Fatalf("round trip changed the value (-first +second):\n%s", diff)
		}
	})
}

// clearIDs drops what is read but never written: item ids (a web_search_call's is written)
// and a tool output's success flag.
func clearIDs(it ResponseItem) ResponseItem {
	switch v := it.(type) {
	case FunctionCallOutputItem:
		v.Output.Success = nil
		return v
	case CustomToolCallOutputItem:
		v.Output.Success = nil
		return v
	case MessageItem:
		v.ID = ""
		return v
	case ReasoningItem:
		v.ID = ""
		return v
	case FunctionCallItem:
		v.ID = ""
		return v
	case CustomToolCallItem:
		v.ID = ""
		return v
	case LocalShellCallItem:
		v.ID = ""
		return v
	}
	return it
}
