package rollout

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
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
	r, err := Parse(f)
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
	br := bufio.NewReaderSize(rd, 256<<10)
	r := &Rollout{}
	n := 0
	for {
		raw, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long line: gather it whole.
			long := append([]byte(nil), raw...)
			for errors.Is(err, bufio.ErrBufferFull) {
				raw, err = br.ReadSlice('\n')
				long = append(long, raw...)
			}
			raw = long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if len(bytes.TrimSpace(raw)) > 0 {
			n++
			torn := errors.Is(err, io.EOF) && raw[len(raw)-1] != '\n'
			if l, ok := parseLine(raw); ok {
				r.Lines = append(r.Lines, l)
			} else if torn {
				r.Warnings = append(r.Warnings, fmt.Sprintf("line %d: incomplete last line ignored (%d bytes)", n, len(raw)))
			} else {
				r.Warnings = append(r.Warnings, fmt.Sprintf("line %d: not a rollout line, ignored", n))
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
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

// parseLineFast reads the envelope as this package and Codex write it
// ({"timestamp":…,"ordinal":…,"type":…,"payload":…}, in that order) with the protocol's
// scanner instead of reflection; it declines (false) anything else, including members in
// another order or after the payload, which then take the general path.
func parseLineFast(raw []byte) (Line, bool) {
	if !json.Valid(raw) {
		return Line{}, false
	}
	var l Line
	next := 0 // the member expected next: 0 timestamp, 1 ordinal or type, 2 payload, 3 none
	ok := true
	err := protocol.ObjectMembers(raw, func(key string, v []byte) bool {
		switch {
		case next == 0 && key == "timestamp":
			l.Timestamp, ok = plainString(v)
			next = 1
		case next == 1 && key == "ordinal" && l.Ordinal == nil:
			var n int64
			n, ok = plainCount(v)
			l.Ordinal = &n
		case next == 1 && key == "type":
			l.Type, ok = plainString(v)
			ok = ok && l.Type != ""
			next = 2
		case next == 2 && key == "payload":
			l.Payload = bytes.Clone(v)
			next = 3
		default:
			ok = false
		}
		return ok
	})
	if err != nil || !ok || next != 3 {
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
