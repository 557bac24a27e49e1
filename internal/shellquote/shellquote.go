// Package shellquote renders an argv as one shell command line for messages to a person (the
// safety checks' reasons, the approval questions of the faces).
package shellquote

import "strings"

// Join renders argv as one shell command line for messages, quoting only the words that
// need it: single quotes by default, double quotes (with \ $ ` " escaped) for words that hold
// a single quote or a backslash.
func Join(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = shellQuote(a)
	}
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	plain := true
	for i := 0; i < len(s); i++ {
		if !isPlainShellByte(s[i]) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	if !strings.ContainsAny(s, `'\`) {
		return "'" + s + "'"
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\', '$', '`', '"':
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('"')
	return b.String()
}

func isPlainShellByte(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("+-./:@]_,=%", c) >= 0
}
