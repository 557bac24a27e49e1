package model_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/modelstream"
)

// BenchmarkClientDeltas measures text deltas per second from testkit's SSE bytes on a
// loopback connection to decoded ResponseEvents.
func BenchmarkClientDeltas(b *testing.B) {
	const deltas = 20000
	srv := testkit.NewServer(b)
	srv.Loop(testkit.SSE(testkit.Created(),
		testkit.Events{{Type: "response.output_text.delta", Data: testkit.TextDelta("hello ").Data, Repeat: deltas}},
		testkit.AssistantMessage("msg_mock", "done"), testkit.Completed(testkit.Usage{Input: 1, Output: deltas})))
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c, err := model.NewClient(model.ClientOptions{Provider: model.ProviderInfo{BaseURL: srv.BaseURL()},
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
		if n != deltas {
			b.Fatalf("%d deltas", n)
		}
		total += n
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "deltas/s")
}
