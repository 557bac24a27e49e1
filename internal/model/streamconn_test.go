package model_test

import (
	"context"
	"testing"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/testkit"
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
	if m, ok := evs[0].(model.ServerModel); !ok || m.Model != "gpt-5.5-mini" {
		t.Fatalf("first event %#v, want the server's model", evs[0])
	}
	if _, ok := evs[len(evs)-1].(model.Completed); !ok {
		t.Fatalf("last event %#v, want Completed", evs[len(evs)-1])
	}
}
