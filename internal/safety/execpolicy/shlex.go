package execpolicy

import (
	"encoding/json"
	"strings"
)

// shellSplit splits an example string the way POSIX shell quoting does, without any
// expansion: whitespace separates words, single quotes are literal, double quotes let a
// backslash escape \ " $ ` and newline, a bare backslash escapes the next character, and # at
// the start of a word begins a comment. ok is false for an unterminated quote or trailing
// backslash.
func shellSplit(s string) ([]string, bool) {
	var (
		words   []string
		cur     strings.Builder
		inWord  bool
		i       int
		n       = len(s)
		flush   = func() { words = append(words, cur.String()); cur.Reset(); inWord = false }
		isSpace = func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	)
	for i < n {
		c := s[i]
		switch {
		case isSpace(c):
			if inWord {
				flush()
			}
			i++
		case c == '#' && !inWord:
			for i < n && s[i] != '\n' {
				i++
			}
		case c == '\\':
			if i+1 >= n {
				return nil, false
			}
			if s[i+1] != '\n' {
				cur.WriteByte(s[i+1])
				inWord = true
			}
			i += 2
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, false
			}
			cur.WriteString(s[i+1 : i+1+end])
			inWord = true
			i += end + 2
		case c == '"':
			i++
			closed := false
			for i < n {
				if s[i] == '"' {
					closed = true
					i++
					break
				}
				if s[i] == '\\' && i+1 < n && strings.IndexByte("\\\"$`\n", s[i+1]) >= 0 {
					if s[i+1] != '\n' {
						cur.WriteByte(s[i+1])
					}
					i += 2
					continue
				}
				cur.WriteByte(s[i])
				i++
			}
			if !closed {
				return nil, false
			}
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
			i++
		}
	}
	if inWord {
		flush()
	}
	return words, true
}

// jsonString writes s as a JSON string without HTML escaping, as serde_json does; the rules
// files Codex appends use this form for tokens, and Starlark reads it as a string literal.
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // encoding a string cannot fail
	return strings.TrimSuffix(b.String(), "\n")
}

// marshalNoEscape is json.Marshal without HTML escaping (Codex writes `<` and `&` as is).
func marshalNoEscape(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}

// jsonStrings renders a token list as ["a", "b"].
func jsonStrings(tokens []string) string {
	parts := make([]string, len(tokens))
	for i, t := range tokens {
		parts[i] = jsonString(t)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
