package safety

import (
	"fmt"
	"strings"
	"unicode"
)

// Texts the model receives when the person declines (Codex's wording).
const (
	ReasonRejectedByUser = "rejected by user"
	PatchRejectedByUser  = "patch rejected by user"
)

// ExecRejectedOutput is the tool output Codex 0.169 gives the model when exec_command does
// not run because the decision was Forbidden or the person declined: the reason wrapped in
// the debug rendering of its internal error, e.g.
//
//	exec_command failed: CreateProcess { message: "Rejected(\"rejected by user\")" }
//
// (The escalation-guard message from EscalationRejection is sent as is, not wrapped.)
func ExecRejectedOutput(tool, reason string) string {
	inner := "Rejected(" + rustDebugString(reason) + ")"
	return fmt.Sprintf("%s failed: CreateProcess { message: %s }", tool, rustDebugString(inner))
}

// rustDebugString quotes s the way Rust's `{:?}` does for a str: backslash, double quote and
// the usual control characters escaped, other unprintable characters as \u{hex}.
func rustDebugString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case 0:
			b.WriteString(`\0`)
		default:
			if r < 0x20 || r == 0x7f || !unicode.IsPrint(r) && r != ' ' {
				fmt.Fprintf(&b, `\u{%x}`, r)
				continue
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
