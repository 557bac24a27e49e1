package patch

import "strings"

// seekSequence finds pattern in lines at or after start and returns its index, or -1.
// Models reproduce file lines imperfectly, so four passes are tried, each over every
// position, from strictest to loosest: exact, ignoring trailing whitespace, ignoring
// surrounding whitespace, and finally with typographic punctuation folded to ASCII. With eof
// set the search starts where the pattern would end at the last line (or at start, if later).
func seekSequence(lines, pattern []string, start int, eof bool) int {
	if len(pattern) == 0 {
		return start
	}
	if len(pattern) > len(lines) {
		return -1
	}
	from := start
	if eof {
		// Anchored at the end, but never before where the previous chunk left off.
		from = max(start, len(lines)-len(pattern))
	}
	last := len(lines) - len(pattern)
	for _, eq := range []func(a, b string) bool{
		func(a, b string) bool { return a == b },
		func(a, b string) bool { return trimRight(a) == trimRight(b) },
		func(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) },
		func(a, b string) bool { return normalise(a) == normalise(b) },
	} {
		for i := from; i <= last; i++ {
			if matchAt(lines[i:i+len(pattern)], pattern, eq) {
				return i
			}
		}
	}
	return -1
}

func matchAt(window, pattern []string, eq func(a, b string) bool) bool {
	for j, p := range pattern {
		if !eq(window[j], p) {
			return false
		}
	}
	return true
}

// normalise trims s and folds the Unicode dashes, quotes and spaces that models and word
// processors substitute for their ASCII forms.
func normalise(s string) string {
	s = strings.TrimSpace(s)
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 0x2010 && r <= 0x2015, r == 0x2212:
			return '-'
		case r >= 0x2018 && r <= 0x201B:
			return '\''
		case r >= 0x201C && r <= 0x201F:
			return '"'
		case r == 0x00A0, r >= 0x2002 && r <= 0x200A, r == 0x202F, r == 0x205F, r == 0x3000:
			return ' '
		}
		return r
	}, s)
}
