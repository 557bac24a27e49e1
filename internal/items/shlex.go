package items

import "strings"

// JoinCommand renders an argv as one shell line, quoting as Codex 0.169 does in its exec
// items: plain words stay bare, others go in single quotes, and words holding a single
// quote go in double quotes with ", \, $ and ` escaped.
func JoinCommand(argv []string) string {
	var b strings.Builder
	for i, w := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quoteWord(w))
	}
	return b.String()
}

func quoteWord(w string) string {
	if w == "" {
		return "''"
	}
	if isBareWord(w) {
		return w
	}
	if !strings.Contains(w, "'") {
		return "'" + w + "'"
	}
	var b strings.Builder
	b.Grow(len(w) + 8)
	b.WriteByte('"')
	for _, r := range w {
		switch r {
		case '"', '\\', '$', '`':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

func isBareWord(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte(",._+:@%/-=", c) >= 0:
		default:
			return false
		}
	}
	return true
}
