package prompt

import (
	"strings"
	"testing"
)

func TestCompactionTexts(t *testing.T) {
	golden(t, "compact_prompt.txt", CompactPrompt())
	msg := SummaryMessage("Did X; next Y.")
	golden(t, "summary_message.txt", msg)
	tests := []struct {
		text string
		want bool
	}{
		{msg, true},
		{SummaryPrefix() + "\n", true},
		{SummaryPrefix(), false},
		{"what is " + SummaryPrefix(), false},
		{"hello", false},
	}
	for _, tc := range tests {
		if got := IsSummaryText(tc.text); got != tc.want {
			t.Errorf("IsSummaryText(%.40q) = %v", tc.text, got)
		}
	}
	if !IsContextualUserText(msg) {
		t.Error("a summary is not something the user typed")
	}
	if strings.TrimSpace(CompactPrompt()) == "" || strings.Contains(SummaryPrefix(), "\n") {
		t.Error("compaction texts malformed")
	}
}
