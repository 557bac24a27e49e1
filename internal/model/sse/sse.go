// Package sse reads a text/event-stream (Server-Sent Events) body into events.
//
// It follows the WHATWG event-stream rules that matter for model APIs: `event:` names the
// event, `data:` lines accumulate (joined by "\n"), a line starting with ':' is a comment, a
// blank line dispatches, lines end in LF, CRLF or CR, a single space after the colon is
// dropped, and an incomplete event at end of input is discarded. `id:` and `retry:` are
// accepted and ignored (the Responses API does not resume streams).
//
// The reader is built for throughput: one growing buffer, SIMD-backed byte searches, and the
// returned event's slices reused between calls, so steady-state parsing does not allocate.
package sse

import (
	"bytes"
	"errors"
	"io"
)

// Event is one dispatched event. Its slices are valid only until the next call to Next.
type Event struct {
	// Type is the `event:` field; empty means the default type "message".
	Type []byte
	// Data is the `data:` lines joined by "\n".
	Data []byte
}

// ErrLineTooLong is returned when one line exceeds the reader's maximum size.
var ErrLineTooLong = errors.New("sse: line too long")

const (
	initialBufSize = 32 << 10
	// spillAbove is the buffer size past which a line that does not fit is set aside in
	// pieces (Reader.long) rather than the buffer grown: a whole answer can arrive in one
	// data line, and growing one buffer to its size would allocate about three times it.
	spillAbove = 256 << 10
	// DefaultMaxLine bounds one line (a whole output item can arrive in one data line).
	DefaultMaxLine = 256 << 20
)

// Reader parses events from an io.Reader. It is not safe for concurrent use.
type Reader struct {
	r       io.Reader
	buf     []byte
	start   int // first unread byte in buf
	end     int // end of valid bytes in buf
	err     error
	maxLine int
	// long holds the beginning of a line longer than the buffer, in the buffers it filled
	// (longLen bytes); the line is joined, once, into a slice of its size when it ends.
	long    [][]byte
	longLen int
	spillAt int
	typ     []byte
	data    []byte
	hasData bool
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: r, buf: make([]byte, initialBufSize), maxLine: DefaultMaxLine, spillAt: spillAbove}
}

// SetMaxLine changes the longest accepted line (default DefaultMaxLine).
func (r *Reader) SetMaxLine(n int) { r.maxLine = n }

// Next returns the next event. At end of input it returns io.EOF (an unterminated trailing
// event is dropped, as the standard says); a read error is returned as is.
func (r *Reader) Next() (Event, error) {
	for {
		line, owned, err := r.readLine()
		if err != nil {
			return Event{}, err
		}
		if len(line) == 0 {
			if !r.hasData {
				// A blank line with no data resets the type and dispatches nothing.
				r.typ = r.typ[:0]
				continue
			}
			ev := Event{Type: r.typ, Data: r.data}
			r.hasData = false
			r.releaseBuf()
			// The backing arrays are reused by the next call, which the Event contract allows.
			r.typ = r.typ[:0]
			return ev, nil
		}
		r.field(line, owned)
	}
}

// Release tells the reader the last event's slices are no longer used: a large event's data
// is dropped now rather than at the next data line, so it is not kept while the event is
// being handled. (Nothing is overwritten: a slice still held stays valid.)
func (r *Reader) Release() {
	if cap(r.data) > shrinkAbove && !r.hasData {
		r.data = nil
	}
}

// field reads one field line; owned says the line is the reader's to keep (a long line
// joined for this call), so a first data line can become the event's data without a copy.
func (r *Reader) field(line []byte, owned bool) {
	if line[0] == ':' {
		return // comment
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		if r.hasData {
			r.data = append(r.data, '\n')
		} else {
			r.hasData = true
			if owned {
				r.data = value
				return
			}
			r.data = r.data[:0]
			if cap(r.data) > shrinkAbove {
				r.data = nil // a large event's data is not kept for the rest of the stream
			}
		}
		r.data = append(r.data, value...)
	case "event":
		r.typ = append(r.typ[:0], value...)
	}
}

// readLine returns the next line without its terminator. The slice points into r.buf and is
// valid until the next readLine, unless owned: then it is a line longer than the buffer,
// joined into a slice of its own.
func (r *Reader) readLine() (line []byte, owned bool, err error) {
	scanFrom := 0 // bytes of the pending line already searched, so a long line is scanned once
	for {
		avail := r.buf[r.start:r.end]
		if line, n, ok := splitLine(avail, scanFrom, r.err != nil); ok {
			r.start += n
			if len(r.long) == 0 {
				return line, false, nil
			}
			joined := make([]byte, 0, r.longLen+len(line))
			for _, piece := range r.long {
				joined = append(joined, piece...)
			}
			r.long, r.longLen = nil, 0
			return append(joined, line...), true, nil
		}
		if r.err != nil {
			if len(avail) > 0 || len(r.long) > 0 {
				// Final line without terminator: it cannot complete an event, so report EOF
				// after dropping it (the standard discards a trailing partial event).
				r.start = r.end
				r.long, r.longLen = nil, 0
			}
			return nil, false, r.err
		}
		scanFrom = len(avail)
		if scanFrom > 0 && avail[scanFrom-1] == '\r' {
			scanFrom-- // re-check a trailing CR once we know the next byte
		}
		setAside := r.longLen
		if err := r.fill(); err != nil {
			return nil, false, err
		}
		scanFrom -= r.longLen - setAside // what fill set aside was searched already
	}
}

// splitLine finds the first line in b. n is the number of bytes consumed including the
// terminator. A CR at the very end is only a terminator at EOF, since an LF may follow.
func splitLine(b []byte, from int, eof bool) (line []byte, n int, ok bool) {
	i := bytes.IndexByte(b[from:], '\n')
	if i >= 0 {
		i += from
		if j := bytes.IndexByte(b[:i], '\r'); j >= 0 {
			if j == i-1 {
				return b[:j], i + 1, true
			}
			return b[:j], j + 1, true
		}
		return b[:i], i + 1, true
	}
	if j := bytes.IndexByte(b, '\r'); j >= 0 && (j < len(b)-1 || eof) {
		return b[:j], j + 1, true
	}
	return nil, 0, false
}

// shrinkAbove is the buffer size past which an emptied buffer goes back to initialBufSize.
const shrinkAbove = 1 << 20

// spill sets the full buffer, the beginning of one line, aside in r.long and reads on into
// a new buffer. A CR at its end stays in the buffer: it ends the line only if no LF follows.
func (r *Reader) spill() {
	n := r.end
	if r.buf[n-1] == '\r' {
		n--
	}
	r.long = append(r.long, r.buf[:n:n])
	r.longLen += n
	nb := make([]byte, len(r.buf))
	r.start, r.end = 0, copy(nb, r.buf[n:r.end])
	r.buf = nb
}

// releaseBuf lets go of a buffer a long line (a large output item) grew, once what it holds
// unread fits a fresh one: it is not kept for the rest of the stream, nor while the event
// just dispatched (whose data is a copy) is being handled.
func (r *Reader) releaseBuf() {
	if len(r.buf) <= shrinkAbove || r.end-r.start > initialBufSize {
		return
	}
	nb := make([]byte, initialBufSize)
	r.start, r.end = 0, copy(nb, r.buf[r.start:r.end])
	r.buf = nb
}

// fill reads more input, compacting or growing the buffer as needed.
func (r *Reader) fill() error {
	r.releaseBuf()
	if r.start > 0 {
		n := copy(r.buf, r.buf[r.start:r.end])
		r.start, r.end = 0, n
	}
	if r.end == len(r.buf) {
		if r.longLen+len(r.buf) >= r.maxLine {
			r.long, r.longLen = nil, 0
			return ErrLineTooLong
		}
		if len(r.buf) >= r.spillAt {
			r.spill()
		} else {
			nb := make([]byte, min(2*len(r.buf), max(r.maxLine, len(r.buf)+1)))
			copy(nb, r.buf[:r.end])
			r.buf = nb
		}
	}
	for tries := 0; tries < 100; tries++ {
		n, err := r.r.Read(r.buf[r.end:])
		r.end += n
		if err != nil {
			if err == io.EOF {
				r.err = io.EOF
			} else {
				r.err = err
			}
			return nil
		}
		if n > 0 {
			return nil
		}
	}
	r.err = io.ErrNoProgress
	return nil
}
