package process

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// bytesPerToken is Codex's rough token estimate: a token is about four bytes.
const bytesPerToken = 4

// TruncationMode says whether a TruncationPolicy counts bytes or approximate tokens.
type TruncationMode int

const (
	// TruncateBytes budgets bytes; the marker counts removed characters.
	TruncateBytes TruncationMode = iota
	// TruncateTokens budgets approximate tokens; the marker counts removed tokens.
	TruncateTokens
)

// TruncationPolicy is a model's `truncation_policy` (or `tool_output_token_limit`).
type TruncationPolicy struct {
	Mode  TruncationMode
	Limit int
}

// Bytes and Tokens build policies.
func Bytes(n int) TruncationPolicy  { return TruncationPolicy{Mode: TruncateBytes, Limit: n} }
func Tokens(n int) TruncationPolicy { return TruncationPolicy{Mode: TruncateTokens, Limit: n} }

// ByteBudget is the policy's limit in bytes.
func (p TruncationPolicy) ByteBudget() int {
	if p.Mode == TruncateTokens {
		return p.Limit * bytesPerToken
	}
	return p.Limit
}

// ApproxTokenCount is ceil(len(s)/4), Codex's estimate.
func ApproxTokenCount(s string) int { return ApproxTokensFromBytes(len(s)) }

// ApproxTokensFromBytes is ceil(n/4).
func ApproxTokensFromBytes(n int) int { return (n + bytesPerToken - 1) / bytesPerToken }

// TruncateMiddle keeps the head and tail halves of the budget, cut on UTF-8 boundaries, with
// `…N chars truncated…` (bytes) or `…N tokens truncated…` (tokens) between them. Text within
// the budget is returned unchanged.
func TruncateMiddle(text string, p TruncationPolicy) string {
	out, _ := truncateMiddle(text, p)
	return out
}

// TruncateMiddleTokens truncates to maxTokens and also reports the original token count when
// it cut anything.
func TruncateMiddleTokens(text string, maxTokens int) (string, int, bool) {
	out, cut := truncateMiddle(text, Tokens(maxTokens))
	if !cut {
		return out, 0, false
	}
	return out, ApproxTokenCount(text), true
}

// FormattedTruncate is TruncateMiddle for command output: when the text is over budget it is
// prefixed with a warning giving the original token count and the total line count, so the
// model knows it sees part of the output.
func FormattedTruncate(text string, p TruncationPolicy) string {
	if len(text) <= p.ByteBudget() {
		return text
	}
	var b strings.Builder
	b.WriteString("Warning: truncated output (original token count: ")
	b.WriteString(strconv.Itoa(ApproxTokenCount(text)))
	b.WriteString(")\nTotal output lines: ")
	b.WriteString(strconv.Itoa(CountLines(text)))
	b.WriteString("\n\n")
	b.WriteString(TruncateMiddle(text, p))
	return b.String()
}

// CountLines counts lines the way Rust's str::lines does: a final newline does not start
// another line, and the empty string has none.
func CountLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// truncateMiddle reports whether it removed anything.
func truncateMiddle(s string, p TruncationPolicy) (string, bool) {
	if s == "" {
		return "", false
	}
	tokens := p.Mode == TruncateTokens
	budget := p.ByteBudget()
	if budget <= 0 {
		if tokens {
			return marker(true, ApproxTokensFromBytes(len(s))), true
		}
		return marker(false, utf8.RuneCountInString(s)), true
	}
	if len(s) <= budget {
		return s, false
	}
	left := budget / 2
	right := budget - left
	head, tail, removedChars := splitHeadTail(s, left, right)
	n := removedChars
	if tokens {
		n = ApproxTokensFromBytes(len(s) - budget)
	}
	return head + marker(tokens, n) + tail, true
}

// splitHeadTail returns the longest prefix of at most headBytes and the longest suffix of at
// most tailBytes that end and start on rune boundaries, and the runes between them.
func splitHeadTail(s string, headBytes, tailBytes int) (string, string, int) {
	headEnd := 0
	for headEnd < len(s) {
		_, size := utf8.DecodeRuneInString(s[headEnd:])
		if headEnd+size > headBytes {
			break
		}
		headEnd += size
	}
	tailStart := len(s) - tailBytes
	if tailStart < headEnd {
		tailStart = headEnd
	}
	// Move forward to a rune start so the tail never begins mid-character.
	for tailStart < len(s) && !utf8.RuneStart(s[tailStart]) {
		tailStart++
	}
	return s[:headEnd], s[tailStart:], utf8.RuneCountInString(s[headEnd:tailStart])
}

func marker(tokens bool, n int) string {
	if tokens {
		return "…" + strconv.Itoa(n) + " tokens truncated…"
	}
	return "…" + strconv.Itoa(n) + " chars truncated…"
}

// LossyString converts command output to text the way Codex does (Rust's
// String::from_utf8_lossy): each maximal invalid sequence becomes one U+FFFD.
func LossyString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || size > 1 {
			sb.Write(b[i : i+size])
			i += size
			continue
		}
		sb.WriteRune(utf8.RuneError)
		i += invalidPrefixLen(b[i:])
	}
	return sb.String()
}

// invalidPrefixLen is the length of the maximal prefix of an ill-formed sequence at b[0]:
// a lead byte followed by the continuation bytes that were still valid for it.
func invalidPrefixLen(b []byte) int {
	lead := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case lead >= 0xC2 && lead <= 0xDF:
		need = 1
	case lead == 0xE0:
		need, lo = 2, 0xA0
	case lead >= 0xE1 && lead <= 0xEC, lead == 0xEE, lead == 0xEF:
		need = 2
	case lead == 0xED:
		need, hi = 2, 0x9F
	case lead == 0xF0:
		need, lo = 3, 0x90
	case lead >= 0xF1 && lead <= 0xF3:
		need = 3
	case lead == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for j := 0; j < need && n < len(b); j++ {
		c := b[n]
		if c < lo || c > hi {
			break
		}
		lo, hi = 0x80, 0xBF
		n++
	}
	return n
}
