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
	var l Line
	if err := json.Unmarshal(raw, &l); err != nil || l.Type == "" || len(l.Payload) == 0 {
		return Line{}, false
	}
	// The payload aliases the reader's buffer only when the line was short; copy it so the
	// next read cannot overwrite it. (json.Unmarshal into RawMessage already copies.)
	return l, true
}
