package config

import (
	"bytes"

	"github.com/pelletier/go-toml/v2/unstable"
)

// document is a light index over config.toml text: where each top-level
// expression starts and ends, so edits can splice bytes and leave everything
// else (comments, blank lines, key order, quoting) exactly as the user wrote
// it.
type document struct {
	src     []byte
	entries []docEntry
	crlf    bool
}

type entryKind int

const (
	kvEntry entryKind = iota
	tableEntry
	arrayTableEntry
)

type docEntry struct {
	kind entryKind
	// path is the full key path: the owning table's path plus the dotted
	// key for a key/value, the header's path for a table.
	path []string
	// local is the key as written on a key/value line (dotted parts).
	local     []string
	lineStart int // first byte of the line the entry starts on
	end       int // just past the newline that ends the entry, or len(src)
	keyOff    int // first byte of the key (for positions)
	// valStart and valEnd delimit a key/value's value text.
	valStart, valEnd int
	valKind          unstable.Kind
	table            int // index of the owning header entry, -1 for the root table
}

// parseDocument indexes src; a syntax error comes back as go-toml reports it
// (with its position) so callers can wrap it with a file name.
func parseDocument(src []byte) (*document, error) {
	d := &document{src: src}
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		d.crlf = true
	}
	var p unstable.Parser
	p.Reset(src)
	current := -1
	var currentPath []string
	for p.NextExpression() {
		n := p.Expression()
		switch n.Kind {
		case unstable.KeyValue:
			keys, first, last := keyParts(n.Key())
			e := docEntry{
				kind:   kvEntry,
				local:  keys,
				path:   append(append([]string(nil), currentPath...), keys...),
				keyOff: first,
				table:  current,
			}
			e.valEnd = int(n.Raw.Offset + n.Raw.Length)
			e.valStart = skipToValue(src, last)
			e.valKind = n.Value().Kind
			e.lineStart = lineStartOf(src, e.keyOff)
			e.end = lineEndAfter(src, e.valEnd)
			d.entries = append(d.entries, e)
		case unstable.Table, unstable.ArrayTable:
			keys, first, last := keyParts(n.Key())
			kind := tableEntry
			if n.Kind == unstable.ArrayTable {
				kind = arrayTableEntry
			}
			e := docEntry{kind: kind, path: keys, keyOff: first, table: -1}
			e.lineStart = lineStartOf(src, first)
			e.end = lineEndAfter(src, last)
			d.entries = append(d.entries, e)
			current = len(d.entries) - 1
			currentPath = keys
		}
	}
	if err := p.Error(); err != nil {
		return nil, err
	}
	return d, nil
}

// keyParts returns the decoded parts of a (dotted) key with the offsets of
// its first byte and just past its last byte.
func keyParts(it unstable.Iterator) (parts []string, first, last int) {
	first = -1
	for it.Next() {
		k := it.Node()
		parts = append(parts, string(k.Data))
		if first < 0 {
			first = int(k.Raw.Offset)
		}
		last = int(k.Raw.Offset + k.Raw.Length)
	}
	return parts, first, last
}

// skipToValue moves from the end of a key over blanks and '=' to the value.
func skipToValue(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '=') {
		i++
	}
	return i
}

func lineStartOf(src []byte, off int) int {
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

// lineEndAfter returns the offset just past the newline that ends the line
// containing off (a trailing comment stays with its line).
func lineEndAfter(src []byte, off int) int {
	if off > len(src) {
		return len(src)
	}
	i := bytes.IndexByte(src[off:], '\n')
	if i < 0 {
		return len(src)
	}
	return off + i + 1
}

// position converts a byte offset to a 1-based line and column.
func position(src []byte, off int) (line, col int) {
	if off > len(src) {
		off = len(src)
	}
	line = bytes.Count(src[:off], []byte{'\n'}) + 1
	col = off - lineStartOf(src, off) + 1
	return line, col
}

// locate finds where keyPath (or its longest defined prefix) is written, for
// error and warning positions. Keys inside inline tables are found too.
func locate(src []byte, keyPath []string) (line, col int, ok bool) {
	var p unstable.Parser
	p.Reset(src)
	var tablePath []string
	best, bestLen := -1, 0
	consider := func(path []string, off int) {
		n := commonPrefix(path, keyPath)
		if (n == len(path) || n == len(keyPath)) && n > bestLen {
			best, bestLen = off, n
		}
	}
	for p.NextExpression() {
		n := p.Expression()
		switch n.Kind {
		case unstable.Table, unstable.ArrayTable:
			it := n.Key()
			tablePath = nil
			for it.Next() {
				k := it.Node()
				tablePath = append(tablePath, string(k.Data))
				consider(append([]string(nil), tablePath...), int(k.Raw.Offset))
			}
		case unstable.KeyValue:
			walkKeyValue(n, tablePath, consider)
		}
		if bestLen == len(keyPath) {
			break
		}
	}
	if best < 0 {
		return 0, 0, false
	}
	line, col = position(src, best)
	return line, col, true
}

func walkKeyValue(n *unstable.Node, prefix []string, visit func([]string, int)) {
	it := n.Key()
	path := append([]string(nil), prefix...)
	for it.Next() {
		k := it.Node()
		path = append(path, string(k.Data))
		visit(append([]string(nil), path...), int(k.Raw.Offset))
	}
	if v := n.Value(); v.Kind == unstable.InlineTable {
		children := v.Children()
		for children.Next() {
			if c := children.Node(); c.Kind == unstable.KeyValue {
				walkKeyValue(c, path, visit)
			}
		}
	}
}

func commonPrefix(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func hasPrefix(path, prefix []string) bool {
	return len(path) >= len(prefix) && commonPrefix(path, prefix) == len(prefix)
}

func equalPath(a, b []string) bool {
	return len(a) == len(b) && commonPrefix(a, b) == len(a)
}
