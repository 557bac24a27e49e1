package jsonrpc

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
)

// Framer cuts a byte stream into message frames and writes frames back. It knows nothing of
// JSON-RPC; the codec (Decode/Encode) and the dispatcher (Conn) sit on top, so stdio and
// websocket share them.
type Framer interface {
	// ReadFrame returns the next frame. The slice is valid until the next call. A frame over
	// the size limit yields a *FrameTooLargeError and the framer stays usable. io.EOF ends the
	// stream. ReadFrame is called from one goroutine at a time.
	ReadFrame(ctx context.Context) ([]byte, error)
	// WriteFrame writes one frame; called from one goroutine at a time.
	WriteFrame(ctx context.Context, frame []byte) error
	// Close releases the transport and unblocks a pending ReadFrame when the transport allows.
	Close() error
}

// DefaultMaxFrame bounds one incoming line-framed message. Codex 0.169 reads stdio lines of
// any size (a 200 MiB line was taken, at 1.1 GB of memory); turn inputs carry images as data
// URLs, so the limit is generous, but a larger frame is answered with an error and skipped,
// never buffered, so memory stays bounded.
const DefaultMaxFrame = 64 << 20

// prefixKeep is how much of an oversized frame is kept to recover its id.
const prefixKeep = 4 << 10

// FrameTooLargeError reports a frame over the limit. Prefix holds its first bytes.
type FrameTooLargeError struct {
	Size   int64
	Limit  int
	Prefix []byte
}

func (e *FrameTooLargeError) Error() string {
	return fmt.Sprintf("message of %d bytes exceeds the limit of %d bytes", e.Size, e.Limit)
}

// Flusher is implemented by framers that buffer writes: the connection flushes when its
// outgoing queue runs empty, so a burst of messages costs one write instead of one each.
// A framer that wraps another must pass Flush on, or buffered frames never leave.
type Flusher interface {
	Flush() error
}

// LineFramer is newline-delimited framing (stdio): one JSON message per line, blank lines
// ignored, a trailing "\r" dropped. Writes are buffered until Flush.
type LineFramer struct {
	r       *bufio.Reader
	w       *bufio.Writer
	closer  io.Closer
	max     int
	buf     []byte
	closeMu sync.Once
}

// NewLineFramer reads frames from r and writes them to w. maxFrame <= 0 means DefaultMaxFrame.
// closer (may be nil) is closed by Close, e.g. to unblock a reader.
func NewLineFramer(r io.Reader, w io.Writer, closer io.Closer, maxFrame int) *LineFramer {
	if maxFrame <= 0 {
		maxFrame = DefaultMaxFrame
	}
	return &LineFramer{r: bufio.NewReaderSize(r, 64<<10), w: bufio.NewWriterSize(w, 64<<10), closer: closer, max: maxFrame}
}

// ReadFrame implements Framer.
func (f *LineFramer) ReadFrame(ctx context.Context) ([]byte, error) {
	for {
		line, err := f.readLine()
		if err != nil {
			return nil, err
		}
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return line, nil
	}
}

// keepBuffer is the most a framer keeps allocated between frames: one large message (an
// image as a data URL) must not pin its size for the connection's lifetime.
const keepBuffer = 1 << 20

func (f *LineFramer) readLine() ([]byte, error) {
	if cap(f.buf) > keepBuffer {
		f.buf = nil
	}
	f.buf = f.buf[:0]
	var size int64
	tooLarge := false
	for {
		chunk, err := f.r.ReadSlice('\n')
		size += int64(len(chunk))
		if !tooLarge {
			if len(f.buf)+len(chunk) > f.max+1 { // +1: the newline does not count
				tooLarge = true
				keep := min(prefixKeep, len(f.buf)+len(chunk))
				prefix := append(f.buf, chunk...)[:keep]
				f.buf = append([]byte(nil), prefix...)
			} else {
				f.buf = append(f.buf, chunk...)
			}
		}
		switch err {
		case nil:
			if tooLarge || len(f.buf)-1 > f.max {
				return nil, &FrameTooLargeError{Size: size - 1, Limit: f.max, Prefix: f.prefix()}
			}
			return f.buf[:len(f.buf)-1], nil
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			if tooLarge || len(f.buf) > f.max {
				return nil, &FrameTooLargeError{Size: size, Limit: f.max, Prefix: f.prefix()}
			}
			if len(f.buf) > 0 { // a last line without newline still counts
				return f.buf, nil
			}
			return nil, io.EOF
		default:
			return nil, err
		}
	}
}

func (f *LineFramer) prefix() []byte { return f.buf[:min(len(f.buf), prefixKeep)] }

// WriteFrame implements Framer: the frame followed by "\n", buffered (see Flush).
func (f *LineFramer) WriteFrame(ctx context.Context, frame []byte) error {
	if _, err := f.w.Write(frame); err != nil {
		return err
	}
	return f.w.WriteByte('\n')
}

// Flush writes what WriteFrame buffered.
func (f *LineFramer) Flush() error { return f.w.Flush() }

// Close implements Framer.
func (f *LineFramer) Close() error {
	var err error
	f.closeMu.Do(func() {
		if f.closer != nil {
			err = f.closer.Close()
		}
	})
	return err
}
