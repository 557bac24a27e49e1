// Package reviewout is a review's answer: read from what the reviewer model wrote (Parse) and
// printed as Codex prints it (Render). The engine reads and prints it; the faces print the
// result the review events carry, without the review's git checks.
package reviewout

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gocodex/gocodex/protocol"
)

// Parse reads the reviewer's answer: the JSON object alone, inside a ```json fence, or
// surrounded by prose. An answer that holds no such object is kept whole as the overall
// explanation, so the person still sees what the reviewer said.
func Parse(text string) protocol.ReviewOutputEvent {
	if out, ok := parseJSON(text); ok {
		return out
	}
	return protocol.ReviewOutputEvent{OverallExplanation: text}
}

func parseJSON(text string) (protocol.ReviewOutputEvent, bool) {
	var out protocol.ReviewOutputEvent
	trimmed := strings.TrimSpace(text)
	if json.Unmarshal([]byte(trimmed), &out) == nil && looksLikeReview(trimmed) {
		return out, true
	}
	// The outermost braces: a fence or prose around the object.
	start, end := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}')
	if start < 0 || end <= start {
		return out, false
	}
	candidate := text[start : end+1]
	out = protocol.ReviewOutputEvent{}
	if json.Unmarshal([]byte(candidate), &out) == nil && looksLikeReview(candidate) {
		return out, true
	}
	return protocol.ReviewOutputEvent{}, false
}

// looksLikeReview tells a review object from any other JSON object the reviewer may print.
func looksLikeReview(s string) bool {
	var keys map[string]json.RawMessage
	if json.Unmarshal([]byte(s), &keys) != nil {
		return false
	}
	_, f := keys["findings"]
	_, e := keys["overall_explanation"]
	_, c := keys["overall_correctness"]
	return f || e || c
}

// Render prints a review result as Codex does: the explanation, then the comments with
// their locations.
func Render(out protocol.ReviewOutputEvent) string {
	var b strings.Builder
	explanation := strings.TrimSpace(out.OverallExplanation)
	b.WriteString(explanation)
	if len(out.Findings) == 0 {
		if explanation == "" {
			return NoOutput
		}
		return b.String()
	}
	if explanation != "" {
		b.WriteString("\n\n")
	}
	if len(out.Findings) == 1 {
		b.WriteString("Review comment:\n")
	} else {
		b.WriteString("Full review comments:\n")
	}
	for i, f := range out.Findings {
		if i > 0 {
			b.WriteString("\n")
		}
		loc := f.CodeLocation
		fmt.Fprintf(&b, "\n- %s — %s:%d-%d", f.Title, loc.AbsoluteFilePath, loc.LineRange.Start, loc.LineRange.End)
		for _, line := range strings.Split(strings.TrimSpace(f.Body), "\n") {
			b.WriteString("\n  " + line)
		}
	}
	return b.String()
}

// NoOutput is what a review that produced no answer reports.
const NoOutput = "Reviewer failed to output a response."
