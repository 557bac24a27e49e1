package protocol

// A strict JSON value scanner, so the one-pass item decoders can validate as they go instead
// of running json.Valid over the item first. It accepts exactly what encoding/json accepts
// (invalid UTF-8 inside strings included), except that very deep nesting is refused; a
// refusal only sends the caller to the encoding/json path, which then decides.

const maxFastDepth = 512

// skipValid returns the index after the valid JSON value starting at i.
func skipValid(data []byte, i, depth int) (int, bool) {
	if i >= len(data) || depth > maxFastDepth {
		return 0, false
	}
	switch c := data[i]; {
	case c == '"':
		return skipValidString(data, i)
	case c == '{':
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == '}' {
			return i + 1, true
		}
		for {
			end, ok := skipValidString(data, i)
			if !ok {
				return 0, false
			}
			i = skipSpace(data, end)
			if i >= len(data) || data[i] != ':' {
				return 0, false
			}
			if i, ok = skipValid(data, skipSpace(data, i+1), depth+1); !ok {
				return 0, false
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return 0, false
			}
			if data[i] == '}' {
				return i + 1, true
			}
			if data[i] != ',' {
				return 0, false
			}
			i = skipSpace(data, i+1)
		}
	case c == '[':
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = skipValid(data, i, depth+1); !ok {
				return 0, false
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return 0, false
			}
			if data[i] == ']' {
				return i + 1, true
			}
			if data[i] != ',' {
				return 0, false
			}
			i = skipSpace(data, i+1)
		}
	case c == 't':
		return skipLiteral(data, i, "true")
	case c == 'f':
		return skipLiteral(data, i, "false")
	case c == 'n':
		return skipLiteral(data, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return skipNumber(data, i)
	}
	return 0, false
}

func skipLiteral(data []byte, i int, lit string) (int, bool) {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// skipNumber follows the JSON number grammar: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?
func skipNumber(data []byte, i int) (int, bool) {
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	default:
		return 0, false
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) || !isDigit(data[i]) {
			return 0, false
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return 0, false
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	return i, true
}

func isHex(c byte) bool { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') }

// skipValidString returns the index after the valid JSON string starting at i.
func skipValidString(data []byte, i int) (int, bool) {
	if i >= len(data) || data[i] != '"' {
		return 0, false
	}
	for i++; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return 0, false
		case c == '\\':
			i++
			if i >= len(data) {
				return 0, false
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(data)-i < 5 || !isHex(data[i+1]) || !isHex(data[i+2]) || !isHex(data[i+3]) || !isHex(data[i+4]) {
					return 0, false
				}
				i += 4
			default:
				return 0, false
			}
		}
	}
	return 0, false
}
