package model_test

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/modelstream"
)

// A stream cut after only its header events (the server's model) restarted no output, so
// its stream retry says Restarted false; a cut after a decoded event says true.
func TestStreamRetryRestartedCountsDecodedOutputOnly(t *testing.T) {
	h := newHarness(t, nil)
	headersOnly := testkit.Cut(0, testkit.Events(ok().Events))
	headersOnly.Header = map[string]string{"openai-model": "gpt-5.5-mini"}
	h.srv.Enqueue(headersOnly, testkit.Cut(1, testkit.Events(ok().Events)), ok())
	evs, err := h.run(t, context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(h.retries) != 2 || h.retries[0].Restarted || !h.retries[1].Restarted {
		t.Fatalf("retries = %+v, want two stream retries, only the second restarted", h.retries)
	}
	if m, ok := evs[0].(modelstream.ServerModel); !ok || m.Model != "gpt-5.5-mini" {
		t.Fatalf("first event %#v, want the server's model", evs[0])
	}
	if _, ok := evs[len(evs)-1].(modelstream.Completed); !ok {
		t.Fatalf("last event %#v, want Completed", evs[len(evs)-1])
	}
}

// A Next whose context is cancelled (here during a request retry's backoff) returns the
// context's error and leaves the stream open: a later Next with a live context reconnects.
// (The cancelled context's interrupt may still land on that reconnect, which is then
// retried, so every later request is answered.)
func TestCancelledNextThenLiveNextReconnects(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.Cut(1, testkit.Events(ok().Events)), testkit.Status(500))
	h.srv.SetDefault(ok())
	nextCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := h.client.Stream(context.Background(), modelstream.Prompt{Model: "gpt-5.5"}, func(r modelstream.RetryInfo) {
		if !r.Stream {
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for err == nil {
		_, err = s.Next(nextCtx)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Next(cancelled) = %v, want context.Canceled", err)
	}
	var last modelstream.ResponseEvent
	for {
		ev, err := s.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Next(live) = %v, want the reconnected response", err)
		}
		last = ev
	}
	if _, ok := last.(modelstream.Completed); !ok || len(h.srv.Requests()) < 3 {
		t.Fatalf("last event %#v after %d requests, want Completed after at least 3", last, len(h.srv.Requests()))
	}
}
