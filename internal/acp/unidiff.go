package acp

import (
	"strconv"
	"strings"
)

// applyUnifiedDiff applies the hunks of a unified diff (as the engine reports an update of a
// patch) to old, for the diff block's new text; false when a hunk does not fit.
func applyUnifiedDiff(old, diff string) (string, bool) {
	src := strings.SplitAfter(old, "\n")
	if len(src) > 0 && src[len(src)-1] == "" {
		src = src[:len(src)-1]
	}
	var out []string
	pos := 0 // next line of src not yet copied
	lines := strings.SplitAfter(diff, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "@@") {
			continue
		}
		start, ok := hunkStart(l)
		if !ok || start < pos {
			return "", false
		}
		out = append(out, src[pos:min(start, len(src))]...)
		pos = start
		for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "@@") {
			i++
			h := lines[i]
			if h == "" {
				continue
			}
			body := h[1:]
			switch h[0] {
			case ' ', '-':
				if pos >= len(src) || strings.TrimSuffix(src[pos], "\n") != strings.TrimSuffix(body, "\n") {
					return "", false
				}
				if h[0] == ' ' {
					out = append(out, src[pos])
				}
				pos++
			case '+':
				out = append(out, body)
			case '\\': // "\ No newline at end of file"
				if n := len(out); n > 0 {
					out[n-1] = strings.TrimSuffix(out[n-1], "\n")
				}
			}
		}
	}
	if pos < len(src) {
		out = append(out, src[pos:]...)
	}
	return strings.Join(out, ""), true
}

// hunkStart reads the old start line of "@@ -a,b +c,d @@" (0-based).
func hunkStart(header string) (int, bool) {
	f := strings.Fields(header)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") {
		return 0, false
	}
	a, _, _ := strings.Cut(f[1][1:], ",")
	n, err := strconv.Atoi(a)
	if err != nil {
		return 0, false
	}
	if n > 0 {
		n--
	}
	return n, true
}
