package reviewout

import (
	"strings"
	"testing"

	"github.com/gocodex/gocodex/protocol"
)

const twoFindings = `{"findings":[{"title":"[P1] Fix it","body":"Because.","confidence_score":0.8,"priority":1,"code_location":{"absolute_file_path":"/x/a.txt","line_range":{"start":1,"end":2}}},` +
	`{"title":"[P2] Other","body":"More.","confidence_score":0.5,"priority":2,"code_location":{"absolute_file_path":"/x/b.txt","line_range":{"start":3,"end":3}}}],` +
	`"overall_correctness":"patch is incorrect","overall_explanation":"It breaks.","overall_confidence_score":0.7}`

// The printed forms, as Codex 0.169 printed the same answers (codex-0.169-observed §3.5).
func TestRenderMatchesCodex(t *testing.T) {
	cases := map[string]string{
		twoFindings:                         "It breaks.\n\nFull review comments:\n\n- [P1] Fix it — /x/a.txt:1-2\n  Because.\n\n- [P2] Other — /x/b.txt:3-3\n  More.",
		"```json\n" + twoFindings + "\n```": "It breaks.\n\nFull review comments:\n\n- [P1] Fix it — /x/a.txt:1-2\n  Because.\n\n- [P2] Other — /x/b.txt:3-3\n  More.",
		"Here you go: " + strings.Replace(twoFindings, `,{"title":"[P2] Other","body":"More.","confidence_score":0.5,"priority":2,"code_location":{"absolute_file_path":"/x/b.txt","line_range":{"start":3,"end":3}}}`, "", 1) + " bye": "It breaks.\n\nReview comment:\n\n- [P1] Fix it — /x/a.txt:1-2\n  Because.",
		`{"findings":[],"overall_correctness":"patch is correct","overall_explanation":"All good.","overall_confidence_score":0.9}`:                                                                                                     "All good.",
		"No JSON at all {not json}": "No JSON at all {not json}",
	}
	for in, want := range cases {
		if got := Render(Parse(in)); got != want {
			t.Errorf("Render(Parse(%.40q)) =\n%q\nwant\n%q", in, got, want)
		}
	}
	if got := Render(protocol.ReviewOutputEvent{}); got != NoOutput {
		t.Errorf("empty output printed %q", got)
	}
}

// The prompts and hints Codex 0.169 sends for each target (observed byte for byte).

// FuzzParse: whatever the reviewer answers, reading and printing it never panics and never
// loses the answer.
func FuzzParse(f *testing.F) {
	f.Add(twoFindings)
	f.Add("```json\n{\"findings\":[]}\n```")
	f.Add("{ } {")
	f.Fuzz(func(t *testing.T, s string) {
		out := Render(Parse(s))
		if strings.TrimSpace(s) != "" && out == "" {
			t.Fatalf("answer %q printed as nothing", s)
		}
	})
}
