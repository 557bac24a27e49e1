package rollout

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
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
// ({"timestamp":…,"ordinal":…,"type":…,"payload":…}) without reflection; it declines
// (false) anything else, including lines with fields after the payload, which then take
// the general path. The payload must be one valid JSON value.
func parseLineFast(raw []byte) (Line, bool) {
	s := bytes.TrimRight(raw, " \t\r\n")
	const tsKey, ordKey, typeKey, payloadKey = `{"timestamp":"`, `,"ordinal":`, `,"type":"`, `,"payload":`
	if !bytes.HasPrefix(s, []byte(tsKey)) || len(s) == 0 || s[len(s)-1] != '}' {
		return Line{}, false
	}
	s = s[len(tsKey):]
	i := bytes.IndexByte(s, '"')
	if i < 0 || !plainASCII(s[:i]) {
		return Line{}, false
	}
	l := Line{Timestamp: string(s[:i])}
	s = s[i+1:]
	if bytes.HasPrefix(s, []byte(ordKey)) {
		s = s[len(ordKey):]
		var n int64
		j := 0
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			n = n*10 + int64(s[j]-'0')
			j++
		}
		if j == 0 {
			return Line{}, false
		}
		l.Ordinal = &n
		s = s[j:]
	}
	if !bytes.HasPrefix(s, []byte(typeKey)) {
		return Line{}, false
	}
	s = s[len(typeKey):]
	i = bytes.IndexByte(s, '"')
	if i <= 0 || !plainASCII(s[:i]) {
		return Line{}, false
	}
	l.Type = string(s[:i])
	s = s[i+1:]
	if !bytes.HasPrefix(s, []byte(payloadKey)) {
		return Line{}, false
	}
	payload := bytes.Trim(s[len(payloadKey):len(s)-1], " \t\r\n") // JSON white space only
	if !json.Valid(payload) {
		return Line{}, false
	}
	l.Payload = bytes.Clone(payload)
	return l, true
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
