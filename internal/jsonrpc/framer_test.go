package jsonrpc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// frameResult is one ReadFrame outcome, for comparing sequences.
type frameResult struct {
	Frame    string
	TooLarge int64 // size reported for an oversized frame
	Prefix   string
}

func readAll(t *testing.T, f Framer) []frameResult {
	t.Helper()
	var out []frameResult
	for {
		b, err := f.ReadFrame(context.Background())
		var tl *FrameTooLargeError
		switch {
		case errors.Is(err, io.EOF):
			return out
		case errors.As(err, &tl):
			out = append(out, frameResult{TooLarge: tl.Size, Prefix: string(tl.Prefix[:min(10, len(tl.Prefix))])})
		case err != nil:
			t.Fatal(err)
		default:
			out = append(out, frameResult{Frame: string(b)})
		}
	}
}

func TestLineFramer(t *testing.T) {
	big := `{"id":7,"params":"` + strings.Repeat("x", 100) + `"}`
	tests := []struct {
		name string
		in   string
		max  int
		want []frameResult
	}{
		{name: "lines", in: "{\"a\":1}\n{\"b\":2}\n", max: 64, want: []frameResult{{Frame: `{"a":1}`}, {Frame: `{"b":2}`}}},
		{name: "blank lines and CRLF", in: "\n  \n{\"a\":1}\r\n\r\n", max: 64, want: []frameResult{{Frame: `{"a":1}`}}},
		{name: "last line without newline", in: "{\"a\":1}\n{\"b\":2}", max: 64, want: []frameResult{{Frame: `{"a":1}`}, {Frame: `{"b":2}`}}},
		{name: "exactly the limit", in: "12345\n", max: 5, want: []frameResult{{Frame: "12345"}}},
		{name: "too large, then served", in: big + "\n{\"c\":3}\n", max: 64,
			want: []frameResult{{TooLarge: int64(len(big)), Prefix: `{"id":7,"p`}, {Frame: `{"c":3}`}}},
		{name: "too large at EOF", in: big, max: 64, want: []frameResult{{TooLarge: int64(len(big)), Prefix: `{"id":7,"p`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewLineFramer(strings.NewReader(tt.in), io.Discard, nil, tt.max)
			if diff := cmp.Diff(tt.want, readAll(t, f)); diff != "" {
				t.Errorf("frames (-want +got):\n%s", diff)
			}
		})
	}
}

// A line far beyond the bufio buffer is skipped without being held in memory.
func TestLineFramerHugeLine(t *testing.T) {
	huge := strings.Repeat("y", 10<<20)
	in := io.MultiReader(strings.NewReader(`{"id":"big","method":"m","params":"`), strings.NewReader(huge), strings.NewReader("\"}\n{\"id\":1,\"method\":\"after\"}\n"))
	f := NewLineFramer(in, io.Discard, nil, 1<<20)
	got := readAll(t, f)
	if len(got) != 2 || got[0].TooLarge == 0 || got[1].Frame != `{"id":1,"method":"after"}` {
		t.Fatalf("frames = %+v", got)
	}
	if c := cap(f.buf); c > 2<<20 {
		t.Errorf("framer kept a %d-byte buffer", c)
	}
}

func TestLineFramerWrite(t *testing.T) {
	var buf bytes.Buffer
	f := NewLineFramer(strings.NewReader(""), &buf, nil, 0)
	f.WriteFrame(context.Background(), []byte(`{"a":1}`))
	f.WriteFrame(context.Background(), []byte(`{"b":2}`))
	if buf.Len() != 0 {
		t.Errorf("wrote %q before Flush", buf.String())
	}
	f.Flush()
	if got, want := buf.String(), "{\"a\":1}\n{\"b\":2}\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

// A large line's buffer is let go once the next line is read.
func TestLineFramerReleasesLargeBuffer(t *testing.T) {
	in := strings.Repeat("a", 3<<20) + "\n{}\n"
	f := NewLineFramer(strings.NewReader(in), io.Discard, nil, 4<<20)
	if b, err := f.ReadFrame(context.Background()); err != nil || len(b) != 3<<20 {
		t.Fatalf("first frame: %d bytes, %v", len(b), err)
	}
	if b, err := f.ReadFrame(context.Background()); err != nil || string(b) != "{}" {
		t.Fatalf("second frame: %q, %v", b, err)
	}
	if c := cap(f.buf); c > keepBuffer {
		t.Errorf("framer still holds %d bytes", c)
	}
}
