package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
)

var benchDelta = []byte(`{"method":"item/agentMessage/delta","params":{"threadId":"0199a213-81c0-7800-8aa1-bbab2a035a53","turnId":"1","itemId":"msg_1","delta":"Hello, world! "}}`)

func BenchmarkDecodeNotification(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchDelta)))
	for b.Loop() {
		if _, err := Decode(benchDelta); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeNotification(b *testing.B) {
	params := map[string]string{"threadId": "0199a213-81c0-7800-8aa1-bbab2a035a53", "turnId": "1", "itemId": "msg_1", "delta": "Hello, world! "}
	b.ReportAllocs()
	for b.Loop() {
		raw, err := Marshal(params)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Encode(&Notification{Method: "item/agentMessage/delta", Params: raw}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLineFramerRead is the stdio read path: split lines and decode each.
func BenchmarkLineFramerRead(b *testing.B) {
	const n = 1000
	input := strings.Repeat(string(benchDelta)+"\n", n)
	b.ReportAllocs()
	b.SetBytes(int64(len(input)))
	for b.Loop() {
		f := NewLineFramer(strings.NewReader(input), io.Discard, nil, 0)
		for range n {
			frame, err := f.ReadFrame(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Decode(frame); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkConnNotify is the server's send path: Notify through the queue and the writer.
func BenchmarkConnNotify(b *testing.B) {
	inR, inW := io.Pipe()
	var sink countingWriter
	c := NewConn(NewLineFramer(inR, &sink, inR, 0), ConnOptions{Handle: func(context.Context, *Conn, *Request) {}})
	done := make(chan error, 1)
	go func() { done <- c.Run(context.Background()) }()
	params := json.RawMessage(`{"threadId":"t","turnId":"1","itemId":"msg_1","delta":"Hello, world! "}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Notify(context.Background(), "item/agentMessage/delta", params); err != nil {
			b.Fatal(err)
		}
	}
	inW.Close()
	<-done
}

// BenchmarkConnNotifyOSPipe is the stdio send path down to the kernel: bursts of
// notifications are written in batches (one write per emptied queue), not one each.
func BenchmarkConnNotifyOSPipe(b *testing.B) {
	pr, pw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	drained := make(chan struct{})
	go func() { io.Copy(io.Discard, pr); close(drained) }()
	inR, inW := io.Pipe()
	c := NewConn(NewLineFramer(inR, pw, inR, 0), ConnOptions{Handle: func(context.Context, *Conn, *Request) {}})
	done := make(chan error, 1)
	go func() { done <- c.Run(context.Background()) }()
	params := json.RawMessage(`{"threadId":"t","turnId":"1","itemId":"msg_1","delta":"Hello, world! "}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Notify(context.Background(), "item/agentMessage/delta", params); err != nil {
			b.Fatal(err)
		}
	}
	inW.Close()
	<-done
	pw.Close()
	<-drained
	pr.Close()
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

var _ = bytes.MinRead
