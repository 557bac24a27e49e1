package chat

import (
	"context"
	"errors"
	"testing"

	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/modelstream"
)

// On the chat wire a Next whose context is cancelled (here during a request retry's backoff)
// ends the stream: a later Next with a live context returns the same error and sends nothing.
func TestCancelledNextEndsTheStream(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.ChatCut(1, testkit.ChatText("a"), testkit.ChatFinish("stop")), testkit.ChatStatus(500),
		testkit.ChatAnswer("b", testkit.Usage{}))
	nextCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := h.client.Stream(context.Background(), prompt(), func(r modelstream.RetryInfo) {
		if !r.Stream {
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := 0; i < 2; i++ { // Created, the delta
		if _, err := s.Next(nextCtx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Next(nextCtx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next(cancelled) = %v, want context.Canceled", err)
	}
	if _, err := s.Next(context.Background()); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next(live) = %v, want context.Canceled again", err)
	}
	if n := len(h.srv.Requests()); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
}
