package config

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Edit is one change to config.toml text, applied by ApplyEdits or EditFile.
// Edits touch only the bytes of the keys they change: comments, blank lines,
// ordering and quoting elsewhere stay exactly as the user wrote them.
type Edit struct {
	op      editOp
	keyPath []string
	value   any
}

type editOp int

const (
	opSet editOp = iota
	opRemove
	opUpsert
)

// Set writes value at keyPath, replacing what is there. A table value (a map
// or struct) replaces the whole table and is written as a `[a.b]` section; a
// nil value removes the key.
func Set(keyPath []string, value any) Edit {
	return Edit{op: opSet, keyPath: keyPath, value: value}
}

// Remove deletes a key or a whole table (with its sub-tables). Removing a
// key that is not there is not an error.
func Remove(keyPath []string) Edit { return Edit{op: opRemove, keyPath: keyPath} }

// Upsert merges a table value into what is there key by key (the app-server
// "upsert" merge strategy); a non-table value behaves like Set.
func Upsert(keyPath []string, value any) Edit {
	return Edit{op: opUpsert, keyPath: keyPath, value: value}
}

// ApplyEdits applies edits in order to config.toml text. The result is
// checked to be valid TOML before it is returned.
func ApplyEdits(src []byte, edits ...Edit) ([]byte, error) {
	var check map[string]any
	if err := toml.Unmarshal(src, &check); err != nil {
		return nil, fmt.Errorf("edit config: %w", err)
	}
	out := src
	for _, e := range edits {
		if len(e.keyPath) == 0 {
			return nil, fmt.Errorf("edit config: empty key path")
		}
		for _, k := range e.keyPath {
			if !utf8.ValidString(k) {
				return nil, fmt.Errorf("edit config: key %q is not valid UTF-8", k)
			}
		}
		v, err := normalize(e.value)
		if err != nil {
			return nil, fmt.Errorf("edit config %s: %w", joinKey(e.keyPath), err)
		}
		switch {
		case e.op == opRemove || v == nil:
			out, err = removeKey(out, e.keyPath)
		case e.op == opUpsert:
			out, err = upsert(out, e.keyPath, v)
		default:
			out, err = setKey(out, e.keyPath, v)
		}
		if err != nil {
			return nil, fmt.Errorf("edit config %s: %w", joinKey(e.keyPath), err)
		}
	}
	var result map[string]any
	if err := toml.Unmarshal(out, &result); err != nil {
		return nil, fmt.Errorf("edit config: result is not valid TOML: %w", err)
	}
	return out, nil
}

func upsert(src []byte, keyPath []string, v any) ([]byte, error) {
	pairs, ok := v.([]kv)
	if !ok {
		return setKey(src, keyPath, v)
	}
	var err error
	if len(pairs) == 0 {
		d, err := parseDocument(src)
		if err != nil {
			return nil, err
		}
		if d.findDefined(keyPath) {
			return src, nil
		}
		return setKey(src, keyPath, pairs)
	}
	for _, p := range pairs {
		if src, err = upsert(src, appendPath(keyPath, p.key), p.value); err != nil {
			return nil, err
		}
	}
	return src, nil
}

func appendPath(path []string, k string) []string {
	return append(append([]string(nil), path...), k)
}

// findDefined reports whether anything is written at or under keyPath.
func (d *document) findDefined(keyPath []string) bool {
	for _, e := range d.entries {
		if hasPrefix(e.path, keyPath) {
			return true
		}
	}
	return false
}

func (d *document) nl() string {
	if d.crlf {
		return "\r\n"
	}
	return "\n"
}

func setKey(src []byte, keyPath []string, v any) ([]byte, error) {
	d, err := parseDocument(src)
	if err != nil {
		return nil, err
	}
	if out, done, err := d.setThroughPrefix(keyPath, v); done || err != nil {
		return out, err
	}
	// The exact key written as `key = value` (also inline tables): swap the
	// value text only, keeping the key's spelling and any trailing comment.
	for _, e := range d.entries {
		if e.kind == kvEntry && equalPath(e.path, keyPath) {
			return splice(src, e.valStart, e.valEnd, renderInline(v)), nil
		}
	}
	if pairs, isTable := v.([]kv); isTable {
		return d.replaceTable(keyPath, pairs)
	}
	if d.findDefined(keyPath) {
		// A table is there and a plain value replaces it.
		if src, err = removeKey(src, keyPath); err != nil {
			return nil, err
		}
		if d, err = parseDocument(src); err != nil {
			return nil, err
		}
	}
	return d.insertKV(keyPath, v), nil
}

// setThroughPrefix handles a key whose parent is written as a value: an
// inline table is rewritten with the change, anything else is an error.
func (d *document) setThroughPrefix(keyPath []string, v any) ([]byte, bool, error) {
	for _, e := range d.entries {
		if len(e.path) >= len(keyPath) || !hasPrefix(keyPath, e.path) {
			continue
		}
		if e.kind == arrayTableEntry {
			return nil, true, fmt.Errorf("%s is an array of tables", joinKey(e.path))
		}
		if e.kind != kvEntry {
			continue
		}
		if e.valKind != unstable.InlineTable {
			return nil, true, fmt.Errorf("%s is not a table", joinKey(e.path))
		}
		pairs, err := parseInlineValue(d.src[e.valStart:e.valEnd])
		if err != nil {
			return nil, true, err
		}
		pairs = setInPairs(pairs, keyPath[len(e.path):], v)
		return splice(d.src, e.valStart, e.valEnd, renderInline(pairs)), true, nil
	}
	return nil, false, nil
}

func parseInlineValue(text []byte) ([]kv, error) {
	var m map[string]any
	if err := toml.Unmarshal(append([]byte("v = "), text...), &m); err != nil {
		return nil, err
	}
	n, err := normalize(m["v"])
	if err != nil {
		return nil, err
	}
	pairs, _ := n.([]kv)
	return pairs, nil
}

// setInPairs sets (or with v == nil removes) path inside a table value.
func setInPairs(pairs []kv, path []string, v any) []kv {
	out := append([]kv(nil), pairs...)
	for i, p := range out {
		if p.key != path[0] {
			continue
		}
		if len(path) == 1 {
			if v == nil {
				return append(out[:i], out[i+1:]...)
			}
			out[i].value = v
			return out
		}
		sub, _ := p.value.([]kv)
		out[i].value = setInPairs(sub, path[1:], v)
		return out
	}
	if v == nil {
		return out
	}
	if len(path) == 1 {
		return append(out, kv{path[0], v})
	}
	return append(out, kv{path[0], setInPairs(nil, path[1:], v)})
}

func renderInline(v any) string {
	var b strings.Builder
	renderValue(&b, v)
	return b.String()
}

// renderSection writes a table as Codex's editor does: its plain keys
// under `[keyPath]`, then each nested table as its own `[keyPath.key]`
// section after a blank line.
func (d *document) renderSection(keyPath []string, pairs []kv) string {
	nl := d.nl()
	var b strings.Builder
	b.WriteString("[" + joinKey(keyPath) + "]" + nl)
	for _, p := range pairs {
		if _, isTable := p.value.([]kv); !isTable {
			b.WriteString(quoteKey(p.key) + " = " + renderInline(p.value) + nl)
		}
	}
	for _, p := range pairs {
		if sub, isTable := p.value.([]kv); isTable {
			b.WriteString(nl + d.renderSection(appendPath(keyPath, p.key), sub))
		}
	}
	return b.String()
}

// replaceTable writes keyPath as a `[section]`: where the old header was, or
// at the end of the file.
func (d *document) replaceTable(keyPath []string, pairs []kv) ([]byte, error) {
	at := -1
	for _, e := range d.entries {
		if e.kind == tableEntry && equalPath(e.path, keyPath) {
			at = e.lineStart
			break
		}
	}
	src, shift := d.removeRanges(d.rangesUnder(keyPath, at), at)
	section := d.renderSection(keyPath, pairs)
	if at < 0 {
		nd, err := parseDocument(src)
		if err != nil {
			return nil, err
		}
		return nd.insertSection(keyPath, section), nil
	}
	at -= shift
	return splice(src, at, at, section), nil
}

func appendSection(src []byte, section, nl string) []byte {
	out := append([]byte(nil), src...)
	if len(out) > 0 {
		if !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, nl...)
		}
		if !bytes.HasSuffix(out, []byte(nl+nl)) && !bytes.Equal(out, []byte(nl)) {
			out = append(out, nl...)
		}
	}
	return append(out, section...)
}

// insertKV adds `key = value` for a key that is not written anywhere yet.
func (d *document) insertKV(keyPath []string, v any) []byte {
	nl := d.nl()
	parent := keyPath[:len(keyPath)-1]
	line := func(local []string) string { return joinKey(local) + " = " + renderInline(v) + nl }

	// 1. An explicit [parent] section: append after its last key.
	for i, e := range d.entries {
		if e.kind == tableEntry && equalPath(e.path, parent) {
			return d.insertAfter(d.sectionEnd(i), line(keyPath[len(parent):]))
		}
	}
	// 2. Siblings written with dotted keys (`features.a = true`): follow them
	// in the same style, since a new [parent] header would be invalid TOML.
	last := -1
	for i, e := range d.entries {
		tableLen := len(e.path) - len(e.local)
		if e.kind == kvEntry && len(parent) > 0 && tableLen <= len(parent) && len(e.path) > len(parent) && hasPrefix(e.path, parent) {
			last = i
		}
	}
	if last >= 0 {
		e := d.entries[last]
		tableLen := len(e.path) - len(e.local)
		return d.insertAfter(e.end, line(keyPath[tableLen:]))
	}
	// 3. A root key: after the last root key, or above the first section.
	if len(parent) == 0 {
		lastRoot, firstHeader := -1, -1
		for i, e := range d.entries {
			if e.kind == kvEntry && e.table < 0 {
				lastRoot = i
			} else if e.kind != kvEntry && firstHeader < 0 {
				firstHeader = i
			}
		}
		switch {
		case lastRoot >= 0:
			return d.insertAfter(d.entries[lastRoot].end, line(keyPath))
		case firstHeader >= 0:
			at := d.attachedCommentStart(d.entries[firstHeader].lineStart)
			return splice(d.src, at, at, line(keyPath)+nl)
		default:
			return d.insertAfter(len(d.src), line(keyPath))
		}
	}
	// 4. A new section.
	return d.insertSection(parent, "["+joinKey(parent)+"]"+nl+line(keyPath[len(parent):]))
}

// insertSection places a new section after the last section of its family
// (a new [mcp_servers.b] goes after the other servers), or at the end.
func (d *document) insertSection(path []string, section string) []byte {
	best, bestLen := -1, 0
	for i, e := range d.entries {
		if e.kind == kvEntry {
			continue
		}
		if n := commonPrefix(e.path, path); n > 0 && n >= bestLen {
			best, bestLen = i, n
		}
	}
	if best < 0 {
		return appendSection(d.src, section, d.nl())
	}
	at := d.sectionEnd(best)
	if at == len(d.src) {
		return appendSection(d.src, section, d.nl())
	}
	return splice(d.src, at, at, d.nl()+section)
}

// sectionEnd is where a new key of the section starting at entry i goes:
// after its last key/value, or after its header line.
func (d *document) sectionEnd(i int) int {
	end := d.entries[i].end
	for _, e := range d.entries[i+1:] {
		if e.kind != kvEntry {
			break
		}
		end = e.end
	}
	return end
}

func (d *document) insertAfter(at int, text string) []byte {
	if at == len(d.src) && at > 0 && d.src[at-1] != '\n' {
		text = d.nl() + text
	}
	return splice(d.src, at, at, text)
}

// attachedCommentStart walks up from a line over the comment lines directly
// above it (no blank line between), which describe that line.
func (d *document) attachedCommentStart(lineStart int) int {
	at := lineStart
	for at > 0 {
		prev := lineStartOf(d.src, at-1)
		text := bytes.TrimSpace(d.src[prev:at])
		if len(text) == 0 || text[0] != '#' || d.insideValue(prev) {
			break
		}
		at = prev
	}
	return at
}

// insideValue reports whether off falls inside a multi-line value, where a
// line starting with '#' is text, not a comment.
func (d *document) insideValue(off int) bool {
	for _, e := range d.entries {
		if e.kind == kvEntry && e.valStart <= off && off < e.valEnd {
			return true
		}
	}
	return false
}

func removeKey(src []byte, keyPath []string) ([]byte, error) {
	d, err := parseDocument(src)
	if err != nil {
		return nil, err
	}
	for _, e := range d.entries {
		if e.kind == kvEntry && len(e.path) < len(keyPath) && hasPrefix(keyPath, e.path) {
			if e.valKind != unstable.InlineTable {
				return src, nil
			}
			pairs, err := parseInlineValue(src[e.valStart:e.valEnd])
			if err != nil {
				return nil, err
			}
			pairs = setInPairs(pairs, keyPath[len(e.path):], nil)
			return splice(src, e.valStart, e.valEnd, renderInline(pairs)), nil
		}
	}
	out, _ := d.removeRanges(d.rangesUnder(keyPath, -1), -1)
	return out, nil
}

type span struct{ start, end int }

// rangesUnder lists the byte ranges holding keyPath and everything below it:
// key lines, and sections from their header to their last key. A removed
// section also takes one neighbouring blank line with it, except the one
// starting at keep, which is about to be rewritten in place.
func (d *document) rangesUnder(keyPath []string, keep int) []span {
	var spans []span
	for i, e := range d.entries {
		if !hasPrefix(e.path, keyPath) {
			continue
		}
		switch e.kind {
		case kvEntry:
			spans = append(spans, span{e.lineStart, e.end})
		default:
			s := span{e.lineStart, d.sectionEnd(i)}
			if e.lineStart != keep {
				s = d.trimBlank(s)
			}
			spans = append(spans, s)
		}
	}
	return spans
}

// trimBlank widens a removed section over one neighbouring blank line so
// that removing a section does not leave two blank lines behind.
func (d *document) trimBlank(s span) span {
	blankBefore := s.start == 0 || isBlankLineBefore(d.src, s.start)
	if s.end < len(d.src) && isBlankLineAt(d.src, s.end) && blankBefore {
		return span{s.start, lineEndAfter(d.src, s.end)}
	}
	if s.end == len(d.src) && s.start > 0 && isBlankLineBefore(d.src, s.start) {
		return span{lineStartOf(d.src, s.start-1), s.end}
	}
	return s
}

func isBlankLineAt(src []byte, at int) bool {
	end := lineEndAfter(src, at)
	return len(bytes.TrimSpace(src[at:end])) == 0
}

func isBlankLineBefore(src []byte, lineStart int) bool {
	if lineStart == 0 {
		return false
	}
	prev := lineStartOf(src, lineStart-1)
	return len(bytes.TrimSpace(src[prev:lineStart])) == 0
}

// removeRanges cuts the spans out of the text and reports how many bytes
// were removed before offset at (so a caller can re-insert there).
func (d *document) removeRanges(spans []span, at int) ([]byte, int) {
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var merged []span
	for _, s := range spans {
		if n := len(merged); n > 0 && s.start <= merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, s.end)
			continue
		}
		merged = append(merged, s)
	}
	out := make([]byte, 0, len(d.src))
	prev, shift := 0, 0
	for _, s := range merged {
		out = append(out, d.src[prev:s.start]...)
		if at >= 0 && s.start < at {
			shift += min(s.end, at) - s.start
		}
		prev = s.end
	}
	out = append(out, d.src[prev:]...)
	return out, shift
}

func splice(src []byte, start, end int, text string) []byte {
	out := make([]byte, 0, len(src)+len(text))
	out = append(out, src[:start]...)
	out = append(out, text...)
	return append(out, src[end:]...)
}
