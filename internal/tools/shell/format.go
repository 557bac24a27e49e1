package shell

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/process"
)

// roundedSeconds is Codex's duration for the model: seconds as a 32-bit float rounded to one
// decimal, computed in 32-bit arithmetic so the printed digits match.
func roundedSeconds(d time.Duration) float32 {
	secs := float32(d.Seconds())
	return float32(math.Round(float64(secs*10))) / 10
}

// displaySeconds prints like Rust's `{}` for f32: shortest round-trip digits, no ".0".
func displaySeconds(d time.Duration) string {
	return strconv.FormatFloat(float64(roundedSeconds(d)), 'f', -1, 32)
}

// jsonSeconds prints like serde_json for f32: shortest digits, always with a fraction.
func jsonSeconds(d time.Duration) string {
	s := displaySeconds(d)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

// StructuredOutput is the `shell` / local_shell answer: a JSON object in a string,
// `{"output":…,"metadata":{"exit_code":N,"duration_seconds":X.X}}`.
func StructuredOutput(r process.Result, policy process.TruncationPolicy) string {
	var b strings.Builder
	b.WriteString(`{"output":`)
	writeJSONString(&b, process.FormattedTruncate(r.Content(), policy))
	b.WriteString(`,"metadata":{"exit_code":`)
	b.WriteString(strconv.Itoa(r.ExitCode))
	b.WriteString(`,"duration_seconds":`)
	b.WriteString(jsonSeconds(r.Duration))
	b.WriteString(`}}`)
	return b.String()
}

// FreeformOutput is the `shell_command` answer:
// `Exit code: N\nWall time: X seconds\n[Total output lines: L\n]Output:\n…`.
func FreeformOutput(r process.Result, policy process.TruncationPolicy) string {
	content := r.Content()
	total := process.CountLines(content)
	body := process.TruncateMiddle(content, policy)
	var b strings.Builder
	b.WriteString("Exit code: ")
	b.WriteString(strconv.Itoa(r.ExitCode))
	b.WriteString("\nWall time: ")
	b.WriteString(displaySeconds(r.Duration))
	b.WriteString(" seconds\n")
	if total != process.CountLines(body) {
		b.WriteString("Total output lines: ")
		b.WriteString(strconv.Itoa(total))
		b.WriteString("\n")
	}
	b.WriteString("Output:\n")
	b.WriteString(body)
	return b.String()
}

// writeJSONString escapes like serde_json: only quote, backslash and control characters, so
// the model sees `<`, `&` and U+2028 as they are.
func writeJSONString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		var esc string
		switch {
		case c == '"':
			esc = `\"`
		case c == '\\':
			esc = `\\`
		case c == '\n':
			esc = `\n`
		case c == '\r':
			esc = `\r`
		case c == '\t':
			esc = `\t`
		case c == '\b':
			esc = `\b`
		case c == '\f':
			esc = `\f`
		case c < 0x20:
			esc = `\u00` + string(hex[c>>4]) + string(hex[c&0xF])
		default:
			continue
		}
		b.WriteString(s[start:i])
		b.WriteString(esc)
		start = i + 1
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}
