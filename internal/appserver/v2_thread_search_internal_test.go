package appserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

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

// TestSearchCursors: Codex 0.171's cursor forms read back to the position they name; a
// page continues strictly after it, in the search's direction.
func TestSearchCursors(t *testing.T) {
	at := time.Date(2026, 11, 27, 20, 21, 18, 0, time.UTC)
	p := searchPosition{at: at, id: "b"}
	if got := p.cursor(false); got != "2026-11-27T20:21:18Z|b" {
		t.Errorf("cursor %q", got)
	}
	if got := (searchPosition{at: at.Add(753 * time.Millisecond), id: "b"}).cursor(true); got != "2026-11-27T20:21:18.753Z|b" {
		t.Errorf("updated cursor %q", got)
	}
	if got, want := p.backwards(false), "2026-11-27T20:21:17.999Z"; got != want {
		t.Errorf("backwards %q, want %q", got, want)
	}
	if got, want := p.backwards(true), "2026-11-27T20:21:18.001Z"; got != want {
		t.Errorf("backwards ascending %q, want %q", got, want)
	}
	c, err := parseSearchCursor(p.cursor(false))
	if err != nil || c.at != at || c.id != "b" || c.bare {
		t.Fatalf("parsed %+v %v", c, err)
	}
	older, sameA := searchPosition{at: at.Add(-time.Second), id: "z"}, searchPosition{at: at, id: "a"}
	if !older.after(c, false) || !sameA.after(c, false) || p.after(c, false) || older.after(c, true) {
		t.Error("order after a cursor")
	}
	back, _ := parseSearchCursor(p.backwards(false))
	if !back.bare || !p.after(back, true) || older.after(back, true) {
		t.Errorf("backwards cursor %+v", back)
	}
	for _, bad := range []string{"garbage", "2026-11-27T20:21:18Z|", "|b"} {
		if _, err := parseSearchCursor(bad); err == nil || err.Error() != "jsonrpc error -32600: invalid cursor: "+bad {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestSearchRefusesAttachedThreads: includeAttachedThreads, which gocodex does not apply, is
// refused by name rather than ignored.
func TestSearchRefusesAttachedThreads(t *testing.T) {
	yes := true
	_, err := (&threads{}).search(context.Background(), nil, threadSearchParams{SearchTerm: "x", IncludeAttachedThreads: &yes}, false)
	if err == nil || !strings.Contains(err.Error(), "includeAttachedThreads is not supported") {
		t.Fatalf("includeAttachedThreads: %v", err)
	}
}
