package anthropic_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/model/anthropic"
	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/modelstream"
)

// BenchmarkClientDeltas measures text deltas per second from the scripted server's SSE bytes
// on a loopback connection to decoded events (the Responses client's benchmark of the same
// name in internal/model is the reference).
func BenchmarkClientDeltas(b *testing.B) {
	const deltas = 20000
	srv := testkit.NewAnthropicServer(b)
	text := testkit.AnthropicText(0, "hello ")
	delta := text[1]
	delta.Repeat = deltas
	srv.Loop(testkit.SSE(testkit.AnthropicMessageStart("msg_1", testkit.AnthropicUsage{InputTokens: 1}),
		text[0], delta, text[2], testkit.AnthropicMessageDelta("end_turn", deltas), testkit.AnthropicMessageStop()))
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c, err := anthropic.New(model.ClientOptions{Provider: model.ProviderInfo{BaseURL: srv.BaseURL()},
		HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	total := 0
	for b.Loop() {
		s, err := c.Stream(ctx, modelstream.Prompt{Model: "claude-sonnet-4-5"}, nil)
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
		if n != deltas {
			b.Fatalf("%d deltas", n)
		}
		total += n
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "deltas/s")
}
