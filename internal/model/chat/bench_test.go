package chat

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/modelstream"
)

const benchDeltas = 20000

// BenchmarkClientDeltas measures text deltas per second from testkit's chat chunks on a
// loopback connection to decoded ResponseEvents (the Responses client's benchmark of the
// same name is the figure to compare with).
func BenchmarkClientDeltas(b *testing.B) {
	srv := testkit.NewChatServer(b)
	parts := make([]testkit.ChatPart, 0, benchDeltas+3)
	for i := 0; i < benchDeltas; i++ {
		parts = append(parts, testkit.ChatText("hello "))
	}
	parts = append(parts, testkit.ChatFinish("stop"), testkit.ChatUsage(testkit.Usage{Input: 1, Output: benchDeltas}), testkit.ChatDone())
	srv.SetDefault(testkit.ChatSSE(parts...))
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c, err := New(model.ClientOptions{Provider: model.ProviderInfo{Name: "Bench", WireAPI: "chat", BaseURL: srv.BaseURL()},
		HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	total := 0
	for b.Loop() {
		s, err := c.Stream(ctx, modelstream.Prompt{Model: "m"}, nil)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			ev, err := s.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := ev.(modelstream.OutputTextDelta); ok {
				n++
			}
		}
		s.Close()
		if n != benchDeltas {
			b.Fatalf("%d deltas", n)
		}
		total += n
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "deltas/s")
}

// BenchmarkDecodeChunk reads one text-delta chunk: the chunk reader alone ("fast", to set
// beside the Responses BenchmarkDecodeDelta/fast), encoding/json for reference, and "feed",
// the reader plus the event and the text kept for the final message.
func BenchmarkDecodeChunk(b *testing.B) {
	data := []byte(testkit.ChatText("hello world ")[0])
	b.Run("fast", func(b *testing.B) {
		var c chunk
		var sc scratch
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := parseChunk(data, &c, &sc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			var c chunk
			if err := json.Unmarshal(data, &c); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("feed", func(b *testing.B) {
		ts := &toolSet{}
		r := reply{status: 200}
		evs := make([]modelstream.ResponseEvent, 0, 4)
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			var err error
			if evs, _, err = r.feed(evs[:0], data, ts, "Bench"); err != nil {
				b.Fatal(err)
			}
			if r.text.Len() > 1<<20 {
				r.text.Reset()
			}
		}
	})
}
