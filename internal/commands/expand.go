package commands

import (
	"errors"
	"strings"
)

// Expand fills the body's placeholders: raw is the argument text as typed, words the
// arguments split as a shell would.
func (c Command) Expand(raw string, words []string) string {
	named := map[string]string{}
	var positional []string
	for _, w := range words {
		if k, v, ok := strings.Cut(w, "="); ok && isName(k) {
			named[k] = v
			continue
		}
		positional = append(positional, w)
	}
	body := c.Body
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		if body[i] != '$' || i+1 == len(body) {
			b.WriteByte(body[i])
			continue
		}
		next := body[i+1]
		switch {
		case next == '$':
			b.WriteByte('$')
			i++
		case next >= '1' && next <= '9':
			if n := int(next - '1'); n < len(positional) {
				b.WriteString(positional[n])
			}
			i++
		case isUpper(next):
			j := i + 1
			for j < len(body) && (isUpper(body[j]) || body[j] == '_' || (body[j] >= '0' && body[j] <= '9')) {
				j++
			}
			key := body[i+1 : j]
			if key == "ARGUMENTS" {
				b.WriteString(raw)
			} else {
				b.WriteString(named[key])
			}
			i = j - 1
		default:
			b.WriteByte('$')
		}
	}
	return strings.TrimSpace(b.String())
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

func isName(s string) bool {
	if s == "" || !isUpper(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isUpper(s[i]) && s[i] != '_' && !(s[i] >= '0' && s[i] <= '9') {
			return false
		}
	}
	return true
}

// splitArgs splits argument text into words: white space separates, single and double
// quotes group, a backslash escapes the next character outside single quotes.
func splitArgs(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case quote == '"':
			if c == '"' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, errors.New("an argument's quote is never closed")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
