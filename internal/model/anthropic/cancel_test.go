package anthropic_test

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/gocodex/gocodex/internal/testkit"
)

// On the Messages wire a Next context counts only during its call: cancelling it after Next
// returned leaves the attempt alone (one request, no retry). The stream's own context ends
// a later Next at once, whatever context that Next is given.
func TestNextContextCountsOnlyDuringTheCall(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.AnthropicAnswer("msg_1", "hi"))
	streamCtx, stopStream := context.WithCancel(context.Background())
	defer stopStream()
	st, err := h.client.Stream(streamCtx, userPrompt("claude-sonnet-4-5", "hi"), h.observe)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	nextCtx, cancel := context.WithCancel(context.Background())
	if _, err := st.Next(nextCtx); err != nil {
		t.Fatal(err)
	}
	cancel()
	n := 1
	for {
		_, err := st.Next(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("Next after the earlier context was cancelled = %v", err)
		}
		n++
	}
	if len(h.Retries()) != 0 || len(h.srv.Requests()) != 1 || n < 3 {
		t.Fatalf("%d events, retries %v, %d requests; want one whole response", n, h.Retries(), len(h.srv.Requests()))
	}

	h.srv.Enqueue(testkit.AnthropicAnswer("msg_2", "hi"))
	streamCtx2, stopStream2 := context.WithCancel(context.Background())
	st2, err := h.client.Stream(streamCtx2, userPrompt("claude-sonnet-4-5", "hi"), h.observe)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	stopStream2()
	if _, err := st2.Next(context.Background()); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next after the stream's context ended = %v, want context.Canceled", err)
	}
}
