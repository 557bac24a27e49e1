package rollout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/gocodex/gocodex/protocol"
)

// Rollout is a parsed rollout file.
type Rollout struct {
	Path string
	// Meta is the first session_meta line's payload.
	Meta SessionMeta
	// Lines are every well-formed line in file order, session_meta included.
	Lines []Line
	// Warnings name the lines that were skipped (a torn last line after a crash, garbage).
	Warnings []string
	// basesLoaded: Lines begin with the lines of the history bases (Load), so a fork
	// copies the whole history.
	basesLoaded bool
	// What Reconstruct and InitialMessages decode, once: resuming a thread asks for both
	// from the engine, the replay of its turns and its notifications.
	reconstructOnce, messagesOnce sync.Once
	resumed                       Resumed
	messages                      []protocol.EventMsg
}

// ErrNoSessionMeta means the file does not start like a rollout.
var ErrNoSessionMeta = errors.New("rollout has no session_meta line")

// ReadFile parses the rollout at path.
func ReadFile(path string) (*Rollout, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open rollout: %w", err)
	}
	defer f.Close()
	size := 0
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = int(fi.Size())
	}
	data, err := readAll(f, size)
	if err != nil {
		return nil, fmt.Errorf("read rollout %s: %w", path, err)
	}
	r, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("read rollout %s: %w", path, err)
	}
	r.Path = path
	return r, nil
}

// Parse reads a rollout. A line that is not a JSON object of the rollout shape is skipped
// with a warning: the last one is what a crash in the middle of a write leaves, and the rest
// of the file is still good.
func Parse(rd io.Reader) (*Rollout, error) {
	data, err := readAll(rd, 0)
	if err != nil {
		return nil, err
	}
	return parse(data)
}

// readAll reads rd whole into one buffer, sized by the hint when the caller knows it: the
// lines' payloads are slices of it, so a rollout is read with one allocation and no copy
// per line.
func readAll(rd io.Reader, sizeHint int) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(sizeHint + bytes.MinRead)
	if _, err := b.ReadFrom(rd); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// parallelParseMin is the size from which parse splits the lines among the processors.
const parallelParseMin = 1 << 20

// parse splits data into lines; the lines' payloads are slices of data. A large rollout is
// cut at line ends into one part per processor, parsed side by side.
func parse(data []byte) (*Rollout, error) {
	parts := 1
	if len(data) >= parallelParseMin {
		parts = min(runtime.GOMAXPROCS(0), 8)
	}
	return parseIn(data, parts)
}

// parseIn is parse in at most parts parts.
func parseIn(data []byte, parts int) (*Rollout, error) {
	chunks := make([]parsedChunk, 0, parts)
	for rest := data; len(rest) > 0; {
		cut := len(rest)
		if left := parts - len(chunks); left > 1 {
			if i := bytes.IndexByte(rest[len(rest)/left:], '\n'); i >= 0 {
				cut = len(rest)/left + i + 1
			}
		}
		chunks = append(chunks, parsedChunk{data: rest[:cut]})
		rest = rest[cut:]
	}
	var wg sync.WaitGroup
	for i := range chunks[min(1, len(chunks)):] {
		wg.Go(chunks[i+1].parse)
	}
	if len(chunks) > 0 {
		chunks[0].parse()
	}
	wg.Wait()
	r := &Rollout{}
	if len(chunks) == 1 {
		r.Lines = chunks[0].lines
	} else {
		total := 0
		for _, c := range chunks {
			total += len(c.lines)
		}
		r.Lines = make([]Line, 0, total)
		for _, c := range chunks {
			r.Lines = append(r.Lines, c.lines...)
		}
	}
	n := 0
	for _, c := range chunks {
		for _, b := range c.bad {
			if b.torn {
				r.Warnings = append(r.Warnings, fmt.Sprintf("line %d: incomplete last line ignored (%d bytes)", n+b.n, b.size))
			} else {
				r.Warnings = append(r.Warnings, fmt.Sprintf("line %d: not a rollout line, ignored", n+b.n))
			}
		}
		n += c.n
	}
	for _, l := range r.Lines {
		if l.Type == TypeSessionMeta {
			if err := json.Unmarshal(l.Payload, &r.Meta); err != nil {
				return nil, fmt.Errorf("session_meta: %w", err)
			}
			return r, nil
		}
	}
	return nil, ErrNoSessionMeta
}

// parsedChunk is a run of whole lines and what parse made of them.
type parsedChunk struct {
	data  []byte
	lines []Line
	bad   []badLine
	n     int // lines that are not blank
}

// badLine is a line parse skips: its number within the chunk, counting non-blank lines
// from 1, and whether it is a torn last line of size bytes.
type badLine struct {
	n, size int
	torn    bool
}

func (c *parsedChunk) parse() {
	c.lines = make([]Line, 0, bytes.Count(c.data, []byte{'\n'})+1)
	for data := c.data; len(data) > 0; {
		var raw []byte
		raw, data = cutLine(data)
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		c.n++
		if l, ok := parseLine(raw); ok {
			c.lines = append(c.lines, l)
		} else {
			// Only the last line can end without a newline.
			c.bad = append(c.bad, badLine{n: c.n, size: len(raw), torn: raw[len(raw)-1] != '\n'})
		}
	}
}

// cutLine splits data after its first newline (all of it is the line when it has none).
func cutLine(data []byte) (line, rest []byte) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return data[:i+1], data[i+1:]
	}
	return data, nil
}

// parseLine reads one line; its Payload may be a slice of raw.
func parseLine(raw []byte) (Line, bool) {
	if l, ok := parseLineFast(raw); ok {
		return l, true
	}
	var l Line
	if err := json.Unmarshal(raw, &l); err != nil || l.Type == "" || len(l.Payload) == 0 {
		return Line{}, false
	}
	return l, true
}

// envelopeKeys are Line's members.
var envelopeKeys = []string{"timestamp", "ordinal", "type", "payload"}

// parseLineFast validates the line and reads its envelope in one pass (members, over
// protocol.ValidObjectMembers), for the lines this package and Codex write: each of
// timestamp, type and payload once, an ordinal or none, in any order, plain strings and
// digits, an object payload; other members (Codex 0.169 adds "metadata" after the payload)
// are skipped once validated, as encoding/json skips them. It declines (false) anything
// else, which then takes the general path, so what a line decodes to stays what
// encoding/json makes of it. The payload is a slice of raw.
func parseLineFast(raw []byte) (Line, bool) {
	var l Line
	var seen [4]bool
	ok := members(raw, envelopeKeys, func(k int, v []byte) bool {
		seen[k] = true
		ok := true
		switch k {
		case 0:
			l.Timestamp, ok = plainString(v)
		case 1:
			var n int64
			n, ok = plainCount(v)
			l.Ordinal = &n
		case 2:
			l.Type, ok = plainString(v)
			ok = ok && l.Type != ""
		case 3:
			l.Payload = v[:len(v):len(v)] // an append to it must not run into the next line
			ok = v[0] == '{'
		}
		return ok
	})
	if !ok || !seen[0] || !seen[2] || !seen[3] {
		return Line{}, false
	}
	return l, true
}

// plainString returns the body of a JSON string that needs no decoding.
func plainString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || !plainASCII(v[1:len(v)-1]) {
		return "", false
	}
	return string(v[1 : len(v)-1]), true
}

// plainCount reads a JSON number written as decimal digits only.
func plainCount(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// plainASCII reports whether a JSON string body needs no decoding: printable ASCII without
// escapes. Anything else takes the general path.
func plainASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e || c == '\\' {
			return false
		}
	}
	return true
}
