package jsonrpc

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzDecode: any bytes either decode to a message that survives Encode→Decode unchanged, or
// fail with a DecodeError; nothing panics.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"c","version":"1"}}}`,
		`{"method":"initialized"}`,
		`{"id":"x","result":{"decision":"accept"}}`,
		`{"error":{"code":-32600,"message":"Not initialized"},"id":0}`,
		`{"jsonrpc":"2.0","id":2,"method":"m","params":null}`,
		`{"id":1.5}`, `[]`, `garbage{`, `{"id":"a","method":`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if err != nil {
			if _, ok := err.(*DecodeError); !ok {
				t.Fatalf("Decode error %T %v, want *DecodeError", err, err)
			}
			return
		}
		enc, err := Encode(m)
		if err != nil {
			t.Fatalf("Encode(%#v): %v", m, err)
		}
		m2, err := Decode(enc)
		if err != nil {
			t.Fatalf("re-Decode(%s): %v", enc, err)
		}
		if diff := cmp.Diff(normalize(m), normalize(m2), cmpID); diff != "" {
			t.Fatalf("round trip of %s changed the message (-first +second):\n%s", data, diff)
		}
	})
}

// normalize compacts raw JSON members so whitespace differences do not count.
func normalize(m Message) Message {
	compact := func(raw []byte) []byte {
		if raw == nil {
			return nil
		}
		var b bytes.Buffer
		if err := jsonCompact(&b, raw); err != nil {
			return raw
		}
		return b.Bytes()
	}
	switch m := m.(type) {
	case *Request:
		c := *m
		c.Params = compact(m.Params)
		return &c
	case *Notification:
		c := *m
		c.Params = compact(m.Params)
		return &c
	case *Response:
		c := *m
		c.Result = compact(m.Result)
		return &c
	}
	return m
}

// FuzzLineFramer: whatever the bytes, the framer returns frames no larger than its limit,
// never contains a newline in a frame, and ends with EOF.
func FuzzLineFramer(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n\n{\"b\":2}\r\n"), 8)
	f.Add([]byte("xxxxxxxxxxxxxxxxxxxxxxxx\nyy"), 4)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max <= 0 || max > 1<<16 {
			max = 16
		}
		fr := NewLineFramer(bytes.NewReader(data), io.Discard, nil, max)
		for range len(data) + 2 {
			b, err := fr.ReadFrame(context.Background())
			if err == io.EOF {
				return
			}
			if err != nil {
				if _, ok := err.(*FrameTooLargeError); ok {
					continue
				}
				t.Fatal(err)
			}
			if len(b) > max || bytes.IndexByte(b, '\n') >= 0 {
				t.Fatalf("frame %q breaks the limit %d or holds a newline", b, max)
			}
		}
		t.Fatal("framer did not reach EOF")
	})
}
