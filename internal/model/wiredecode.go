package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// The Responses stream is dominated by small delta events, and encoding/json's reflection
// costs several allocations per event. decodeWire is a strict, allocation-light reader for
// the flat event object: it validates the whole document like json.Unmarshal, reads the
// fields we use, and keeps item/response as raw slices. Anything it is not sure about
// (escapes, odd numbers, keys differing only in case) goes to encoding/json, so the result is
// always what json.Unmarshal would give (FuzzDecodeWire checks this).

var errSyntax = errors.New("invalid JSON")

// errFallback asks the caller to use encoding/json for this event.
var errFallback = errors.New("fallback")

// wireScratch carries strings reused across events so repeated item ids do not allocate.
type wireScratch struct {
	lastType   string
	lastItemID string
	lastCallID string
}

func (w *wireScratch) intern(prev *string, b []byte) string {
	if string(b) == *prev { // no allocation: the compiler compares without converting
		return *prev
	}
	*prev = string(b)
	return *prev
}

// decodeWire fills ev from data. It returns errSyntax for invalid JSON and errFallback when
// encoding/json must decide.
func decodeWire(data []byte, ev *wireEvent, sc *wireScratch) error {
	*ev = wireEvent{}
	d := scanner{b: data}
	d.ws()
	if !d.eat('{') {
		return errFallback // not an object (null, say): encoding/json decides, as it would
	}
	d.ws()
	if d.eat('}') {
		return d.end()
	}
	for {
		d.ws()
		key, esc, ok := d.str()
		if !ok {
			return errSyntax
		}
		if esc {
			return errFallback
		}
		d.ws()
		if !d.eat(':') {
			return errSyntax
		}
		d.ws()
		if err := d.field(key, ev, sc); err != nil {
			return err
		}
		d.ws()
		if d.eat(',') {
			continue
		}
		if d.eat('}') {
			return d.end()
		}
		return errSyntax
	}
}

var knownKeys = []string{"type", "delta", "item_id", "call_id", "summary_index", "content_index", "item", "response"}

func (d *scanner) field(key []byte, ev *wireEvent, sc *wireScratch) error {
	switch string(key) {
	case "type":
		return d.strField(&ev.Type, &sc.lastType, sc)
	case "delta":
		return d.strField(&ev.Delta, nil, sc)
	case "item_id":
		return d.strField(&ev.ItemID, &sc.lastItemID, sc)
	case "call_id":
		return d.strField(&ev.CallID, &sc.lastCallID, sc)
	case "summary_index":
		return d.intField(&ev.SummaryIndex)
	case "content_index":
		return d.intField(&ev.ContentIndex)
	case "item":
		return d.rawField(&ev.Item)
	case "response":
		return d.rawField(&ev.Response)
	}
	for _, k := range knownKeys {
		if bytes.EqualFold(key, []byte(k)) {
			return errFallback // encoding/json matches keys case-insensitively
		}
	}
	return d.skip(0)
}

func (d *scanner) strField(dst *string, intern *string, sc *wireScratch) error {
	if d.peek() == 'n' {
		return d.lit("null") // json leaves the field unchanged
	}
	if d.peek() != '"' {
		if err := d.skip(0); err != nil {
			return err
		}
		return errFallback // a type mismatch: json.Unmarshal reports an error
	}
	s, esc, ok := d.str()
	if !ok {
		return errSyntax
	}
	if esc || !utf8.Valid(s) {
		return errFallback
	}
	if intern != nil {
		*dst = sc.intern(intern, s)
	} else {
		*dst = string(s)
	}
	return nil
}

func (d *scanner) intField(dst *int64) error {
	if d.peek() == 'n' {
		return d.lit("null")
	}
	start := d.i
	if err := d.skip(0); err != nil {
		return err
	}
	v, err := strconv.ParseInt(string(d.b[start:d.i]), 10, 64)
	if err != nil {
		return errFallback
	}
	*dst = v
	return nil
}

func (d *scanner) rawField(dst *json.RawMessage) error {
	start := d.i
	if err := d.skip(0); err != nil {
		return err
	}
	*dst = d.b[start:d.i]
	return nil
}

// scanner walks JSON bytes.
type scanner struct {
	b []byte
	i int
}

func (d *scanner) end() error {
	d.ws()
	if d.i != len(d.b) {
		return errSyntax
	}
	return nil
}

func (d *scanner) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *scanner) peek() byte {
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

func (d *scanner) eat(c byte) bool {
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *scanner) lit(s string) error {
	if len(d.b)-d.i >= len(s) && string(d.b[d.i:d.i+len(s)]) == s {
		d.i += len(s)
		return nil
	}
	return errSyntax
}

// str reads a string token and returns its raw contents; esc reports backslash escapes
// (validated, not decoded).
func (d *scanner) str() (s []byte, esc bool, ok bool) {
	if !d.eat('"') {
		return nil, false, false
	}
	start := d.i
	for d.i < len(d.b) {
		// Plain bytes are the common case: skip them through the table before the switch.
		for d.i < len(d.b) && !strSpecial[d.b[d.i]] {
			d.i++
		}
		if d.i >= len(d.b) {
			break
		}
		c := d.b[d.i]
		switch {
		case c == '"':
			s = d.b[start:d.i]
			d.i++
			return s, esc, true
		case c == '\\':
			esc = true
			d.i++
			if d.i >= len(d.b) {
				return nil, false, false
			}
			switch d.b[d.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.i++
			case 'u':
				if len(d.b)-d.i < 5 {
					return nil, false, false
				}
				for _, h := range d.b[d.i+1 : d.i+5] {
					if !isHex(h) {
						return nil, false, false
					}
				}
				d.i += 5
			default:
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false
		default:
			d.i++
		}
	}
	return nil, false, false
}

// strSpecial marks the bytes that end the fast path inside a string: the quote, the
// backslash and the control characters JSON forbids.
var strSpecial = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

const maxDepth = 10000 // encoding/json's nesting limit

// skip validates and passes over one value.
func (d *scanner) skip(depth int) error {
	if depth > maxDepth {
		return errFallback
	}
	switch c := d.peek(); {
	case c == '"':
		if _, _, ok := d.str(); !ok {
			return errSyntax
		}
		return nil
	case c == '{':
		d.i++
		d.ws()
		if d.eat('}') {
			return nil
		}
		for {
			d.ws()
			if _, _, ok := d.str(); !ok {
				return errSyntax
			}
			d.ws()
			if !d.eat(':') {
				return errSyntax
			}
			d.ws()
			if err := d.skip(depth + 1); err != nil {
				return err
			}
			d.ws()
			if d.eat(',') {
				continue
			}
			if d.eat('}') {
				return nil
			}
			return errSyntax
		}
	case c == '[':
		d.i++
		d.ws()
		if d.eat(']') {
			return nil
		}
		for {
			d.ws()
			if err := d.skip(depth + 1); err != nil {
				return err
			}
			d.ws()
			if d.eat(',') {
				continue
			}
			if d.eat(']') {
				return nil
			}
			return errSyntax
		}
	case c == 't':
		return d.lit("true")
	case c == 'f':
		return d.lit("false")
	case c == 'n':
		return d.lit("null")
	case c == '-' || '0' <= c && c <= '9':
		return d.number()
	}
	return errSyntax
}

// number validates a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *scanner) number() error {
	d.eat('-')
	switch {
	case d.eat('0'):
	case d.i < len(d.b) && '1' <= d.b[d.i] && d.b[d.i] <= '9':
		d.digits()
	default:
		return errSyntax
	}
	if d.eat('.') {
		if d.digits() == 0 {
			return errSyntax
		}
	}
	if d.eat('e') || d.eat('E') {
		if !d.eat('+') {
			d.eat('-')
		}
		if d.digits() == 0 {
			return errSyntax
		}
	}
	return nil
}

func (d *scanner) digits() int {
	n := 0
	for d.i < len(d.b) && '0' <= d.b[d.i] && d.b[d.i] <= '9' {
		d.i++
		n++
	}
	return n
}
