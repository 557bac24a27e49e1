package protocol

import (
	"bytes"
	"strings"
	"testing"
)

// MarshalWithText writes exactly what Marshal writes, for long texts with every character
// JSON escapes, used once, twice or not at all, and for short texts.
func TestMarshalWithTextIsMarshal(t *testing.T) {
	type item struct {
		Type string  `json:"type"`
		Text string  `json:"text"`
		Note *string `json:"note"`
	}
	odd := "<a & b> \"quoted\" back\\slash \n\t\r\b\f \x01\x1f \u2028\u2029 \xff\xfe é 日本 "
	long := strings.Repeat(odd, longText/len(odd)+10)
	for name, tc := range map[string]struct {
		text  string
		build func(string) any
	}{
		"long, once":       {long, func(s string) any { return AgentMessageEvent{Message: s} }},
		"long, twice":      {long, func(s string) any { return []item{{Type: "a", Text: s}, {Type: "b", Text: s, Note: &s}} }},
		"long, not used":   {long, func(string) any { return item{Type: "empty"} }},
		"short":            {odd, func(s string) any { return item{Type: "a", Text: s} }},
		"long, in a field": {long, func(s string) any { return TurnCompleteEvent{TurnID: "t", LastAgentMessage: &s} }},
	} {
		t.Run(name, func(t *testing.T) {
			want, err := Marshal(tc.build(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			got, err := MarshalWithText(tc.text, tc.build)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("MarshalWithText differs from Marshal: %d bytes against %d", len(got), len(want))
			}
		})
	}
}

// Several texts, long and short, each where build puts it.
func TestMarshalWithTextsIsMarshal(t *testing.T) {
	long1 := strings.Repeat("first \"one\"\n", longText/8)
	long2 := strings.Repeat("second <two>\u2028", longText/8)
	texts := []string{long1, "short", long2}
	build := func(ts []string) any {
		return []AgentMessageEvent{{Message: ts[2]}, {Message: ts[0]}, {Message: ts[1]}, {Message: ts[2]}}
	}
	want, err := Marshal(build(texts))
	if err != nil {
		t.Fatal(err)
	}
	got, err := MarshalWithTexts(texts, build)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("MarshalWithTexts differs from Marshal: %d bytes against %d", len(got), len(want))
	}
}
