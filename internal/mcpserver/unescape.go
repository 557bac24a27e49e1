package mcpserver

import "bytes"

// unescapeHTML undoes encoding/json's HTML escaping (\u003c, \u003e, \u0026) and its
// escaping of U+2028 and U+2029 inside the JSON strings of b. The go-sdk encodes tool
// results with json.Marshal, which escapes them; Codex (serde_json) writes them as they
// are, and so do we. Everything else is copied byte for byte.
func unescapeHTML(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !inString {
			if c == '"' {
				inString = true
			}
			out = append(out, c)
			continue
		}
		switch c {
		case '"':
			inString = false
			out = append(out, c)
		case '\\':
			if i+1 >= len(b) {
				out = append(out, c)
				continue
			}
			if b[i+1] == 'u' && i+6 <= len(b) {
				if r, ok := htmlEscapes[string(b[i+2:i+6])]; ok {
					out = append(out, r...)
					i += 5
					continue
				}
			}
			// Any other escape is kept whole, so that an escaped backslash is never read
			// as the start of another escape.
			out = append(out, c, b[i+1])
			i++
		default:
			out = append(out, c)
		}
	}
	return out
}

var htmlEscapes = map[string]string{
	"003c": "<", "003C": "<",
	"003e": ">", "003E": ">",
	"0026": "&",
	"2028": "\u2028",
	"2029": "\u2029",
}
