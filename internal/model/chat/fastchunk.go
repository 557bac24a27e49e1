package chat

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Text deltas dominate a chat stream, and encoding/json spends a dozen allocations on each
// chunk. decodeFast reads the common chunk shape (id, choices with content, reasoning and
// finish_reason), checking the syntax as it goes and keeping only the delta strings;
// anything invalid or not modelled exactly (tool_calls, usage, error, keys that differ only
// in case, odd numbers) is left to encoding/json by returning false.

// scratch carries strings reused across chunks so the repeated id does not allocate.
type scratch struct {
	id string
}

// fastScanner walks a payload and checks its syntax as it goes; any error or doubt makes
// the caller hand the payload to encoding/json, which gives the real error.
type fastScanner struct {
	b []byte
	i int
}

func (d *fastScanner) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *fastScanner) peek() byte {
	d.ws()
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

// eat consumes c (after whitespace).
func (d *fastScanner) eat(c byte) bool {
	if d.peek() == c {
		d.i++
		return true
	}
	return false
}

// literal consumes the word w ("null", "true", "false").
func (d *fastScanner) literal(w string) bool {
	if d.i+len(w) <= len(d.b) && string(d.b[d.i:d.i+len(w)]) == w {
		d.i += len(w)
		return true
	}
	return false
}

// rawString returns the string token at the cursor, quotes included, and whether it holds an
// escape; ok is false for a malformed string.
func (d *fastScanner) rawString() (raw []byte, esc, ok bool) {
	start := d.i
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return nil, false, false
	}
	d.i++
	for {
		// Find the next quote with a vector search, then check the bytes before it.
		j := bytes.IndexByte(d.b[d.i:], '"')
		if j < 0 {
			return nil, false, false
		}
		end := d.i + j
		for d.i < end {
			c := d.b[d.i]
			if c >= 0x20 && c != '\\' {
				d.i++
				continue
			}
			if c < 0x20 || !d.escape() {
				return nil, false, false
			}
			esc = true
		}
		if d.i == end {
			d.i++
			return d.b[start:d.i], esc, true
		}
		// An escape ran past the quote (it was \"): search again from here.
	}
}

// escape consumes one valid escape sequence at the cursor.
func (d *fastScanner) escape() bool {
	if d.i+1 >= len(d.b) {
		return false
	}
	switch d.b[d.i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		d.i += 2
		return true
	case 'u':
		if d.i+6 > len(d.b) {
			return false
		}
		for _, h := range d.b[d.i+2 : d.i+6] {
			if !isHex(h) {
				return false
			}
		}
		d.i += 6
		return true
	}
	return false
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// str reads a string or null into a Go string (null leaves ""); ok is false for any other
// value or a malformed one.
func (d *fastScanner) str() (string, bool) {
	switch d.peek() {
	case 'n':
		return "", d.literal("null")
	case '"':
		raw, esc, ok := d.rawString()
		if !ok {
			return "", false
		}
		if !esc && utf8.Valid(raw) { // encoding/json replaces invalid bytes with U+FFFD
			return string(raw[1 : len(raw)-1]), true
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	}
	return "", false
}

// number consumes a JSON number.
func (d *fastScanner) number() bool {
	start := d.i
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	digits := func() int {
		n := 0
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	intStart := d.i
	n := digits()
	if n == 0 || (n > 1 && d.b[intStart] == '0') {
		return false
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return false
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return d.i > start
}

// skip passes over one value, checking it; depth bounds nesting as encoding/json does.
func (d *fastScanner) skip(depth int) bool {
	if depth > 1000 {
		return false
	}
	switch d.peek() {
	case '"':
		_, _, ok := d.rawString()
		return ok
	case '{':
		return d.skipObject(depth)
	case '[':
		d.i++
		if d.eat(']') {
			return true
		}
		for {
			if !d.skip(depth + 1) {
				return false
			}
			if d.eat(',') {
				continue
			}
			return d.eat(']')
		}
	case 'n':
		return d.literal("null")
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	}
	return d.number()
}

// open consumes the start of an object: null (open false) or '{'; ok is false for any
// other value.
func (d *fastScanner) open() (open, ok bool) {
	switch d.peek() {
	case 'n':
		return false, d.literal("null")
	case '{':
		d.i++
		return true, true
	}
	return false, false
}

// key reads the next key of an open object and its colon; more is false at the closing
// brace. Keys with escapes give up (ok false): encoding/json would unescape them.
func (d *fastScanner) key(first bool) (key []byte, more, ok bool) {
	if d.eat('}') {
		return nil, false, true
	}
	if !first && !d.eat(',') {
		return nil, false, false
	}
	d.ws()
	raw, esc, ok := d.rawString()
	if !ok || esc || !d.eat(':') {
		return nil, false, false
	}
	return raw[1 : len(raw)-1], true, true
}

// foldsTo reports whether key equals one of known only when case is ignored, the match
// encoding/json would make and the fast reader does not.
func foldsTo(key []byte, known ...string) bool {
	for _, k := range known {
		if len(key) == len(k) && strings.EqualFold(string(key), k) {
			return true
		}
	}
	return false
}

// skipObject passes over an object at the cursor.
func (d *fastScanner) skipObject(depth int) bool {
	if open, ok := d.open(); !ok || !open {
		return ok
	}
	for first := true; ; first = false {
		_, more, ok := d.key(first)
		if !ok || !more {
			return ok
		}
		if !d.skip(depth + 1) {
			return false
		}
	}
}

var (
	chunkKeys  = []string{"id", "choices", "usage", "error"}
	choiceKeys = []string{"index", "delta", "finish_reason"}
	deltaKeys  = []string{"content", "reasoning_content", "reasoning", "tool_calls"}
)

// decodeFast fills c from data; false means encoding/json must read it (the payload is
// invalid, or holds something the fast reader does not model).
func decodeFast(data []byte, c *chunk, sc *scratch) bool {
	choices := c.Choices[:0]
	*c = chunk{}
	d := &fastScanner{b: data}
	if open, ok := d.open(); !open || !ok {
		return false // null and non-objects: encoding/json decides
	}
	seenChoices := false
	for first := true; ; first = false {
		key, more, ok := d.key(first)
		if !ok {
			return false
		}
		if !more {
			break
		}
		switch string(key) {
		case "id":
			d.ws()
			raw, esc, ok := d.rawString()
			if !ok || esc || !utf8.Valid(raw) {
				return false
			}
			if v := raw[1 : len(raw)-1]; string(v) != sc.id {
				sc.id = string(v)
			}
			c.ID = sc.id
		case "choices":
			if seenChoices { // encoding/json merges a repeated array into the first one
				return false
			}
			seenChoices = true
			if !d.choices(c, choices) {
				return false
			}
		case "usage", "error": // only null is read here
			if d.peek() != 'n' || !d.literal("null") {
				return false
			}
			if string(key) == "usage" {
				c.Usage = nil
			} else {
				c.Error = nil
			}
		default:
			if foldsTo(key, chunkKeys...) || !d.skip(1) {
				return false
			}
		}
	}
	d.ws()
	return d.i == len(d.b)
}

func (d *fastScanner) choices(c *chunk, list []choice) bool {
	switch d.peek() {
	case 'n':
		c.Choices = nil
		return d.literal("null")
	case '[':
		d.i++
	default:
		return false
	}
	if d.eat(']') {
		c.Choices = list
		return true
	}
	for {
		list = append(list, choice{})
		if !d.choice(&list[len(list)-1]) {
			return false
		}
		if d.eat(',') {
			continue
		}
		c.Choices = list
		return d.eat(']')
	}
}

func (d *fastScanner) choice(ch *choice) bool {
	if open, ok := d.open(); !ok || !open {
		return ok
	}
	for first := true; ; first = false {
		key, more, ok := d.key(first)
		if !ok || !more {
			return ok
		}
		switch string(key) {
		case "index":
			if d.peek() == 'n' {
				if !d.literal("null") {
					return false
				}
				continue
			}
			n, ok := d.smallInt()
			if !ok {
				return false
			}
			ch.Index = n
		case "delta":
			if !d.delta(&ch.Delta) {
				return false
			}
		case "finish_reason":
			wasNull := d.peek() == 'n'
			s, ok := d.str()
			if !ok {
				return false
			}
			if !wasNull { // null keeps what an earlier duplicate key set, as encoding/json does
				ch.FinishReason = s
			}
		default:
			if foldsTo(key, choiceKeys...) || !d.skip(1) {
				return false
			}
		}
	}
}

func (d *fastScanner) delta(dl *delta) bool {
	if open, ok := d.open(); !ok || !open {
		return ok
	}
	for first := true; ; first = false {
		key, more, ok := d.key(first)
		if !ok || !more {
			return ok
		}
		switch string(key) {
		case "content", "reasoning_content", "reasoning", "tool_calls":
			if !d.deltaField(dl, string(key)) {
				return false
			}
		default:
			if foldsTo(key, deltaKeys...) || !d.skip(1) {
				return false
			}
		}
	}
}

func (d *fastScanner) deltaField(dl *delta, key string) bool {
	switch key {
	case "content", "reasoning_content":
		wasNull := d.peek() == 'n'
		s, ok := d.str()
		if !ok {
			return false
		}
		if !wasNull { // null keeps what an earlier duplicate key set
			if key == "content" {
				dl.Content = s
			} else {
				dl.ReasoningContent = s
			}
		}
		return true
	case "reasoning":
		null := d.peek() == 'n'
		from := d.i
		if !d.skip(3) {
			return false
		}
		dl.Reasoning = d.b[from:d.i] // only read when it is a string
		if null {
			dl.Reasoning = nil
		}
		return true
	default: // tool_calls: only null is read here
		if d.peek() != 'n' || !d.literal("null") {
			return false
		}
		dl.ToolCalls = nil
		return true
	}
}

// smallInt reads a non-negative integer of at most 9 digits (what an index is); false for
// anything else, which encoding/json then judges.
func (d *fastScanner) smallInt() (int, bool) {
	n, digits := 0, 0
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		n = n*10 + int(d.b[d.i]-'0')
		d.i++
		digits++
	}
	if digits == 0 || digits > 9 || (digits > 1 && d.b[d.i-digits] == '0') {
		return 0, false
	}
	if d.i < len(d.b) {
		switch d.b[d.i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	return n, true
}
