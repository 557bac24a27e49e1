package appserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/gocodex/gocodex/internal/jsonrpc"
)

func requestID(t *testing.T, raw string) jsonrpc.ID {
	t.Helper()
	var id jsonrpc.ID
	if err := json.Unmarshal([]byte(raw), &id); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestRunningSearchesCancel: a cancel ends only the search of its own kind (thread/search or
// thread/search/stream) under its id (1 is not "1"); a finished search is forgotten, its
// context released.
func TestRunningSearchesCancel(t *testing.T) {
	s := &runningSearches{running: map[string]runningSearch{}}
	ctx, done := s.start(context.Background(), requestID(t, "1"), true)
	s.cancel(requestID(t, "1"), false)
	s.cancel(requestID(t, `"1"`), true)
	if ctx.Err() != nil {
		t.Fatal("cancelled by a cancel of another kind or id")
	}
	s.cancel(requestID(t, "1"), true)
	if ctx.Err() == nil {
		t.Fatal("thread/search/stream/cancel did not cancel the stream")
	}
	done()
	if len(s.running) != 0 {
		t.Errorf("still registered: %v", s.running)
	}
	ctx, done = s.start(context.Background(), requestID(t, `"a"`), false)
	done()
	s.cancel(requestID(t, `"a"`), false) // finished: nothing to do
	if ctx.Err() == nil {
		t.Error("a finished search's context is not released")
	}
}
