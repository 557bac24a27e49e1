package agent

import (
	"context"
	"io"
	"os"
	"sync"

	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
)

// fakeStreamer plays a fixed list of events for every request, with no network.
type fakeStreamer struct{ events []modelstream.ResponseEvent }

func (f fakeStreamer) Stream(ctx context.Context, p modelstream.Prompt, obs modelstream.RetryObserver) (ModelStream, error) {
	return &fakeStream{events: f.events}, nil
}

type fakeStream struct {
	events []modelstream.ResponseEvent
	i      int
}

func (s *fakeStream) Next(ctx context.Context) (modelstream.ResponseEvent, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.i >= len(s.events) {
		return nil, io.EOF
	}
	ev := s.events[s.i]
	s.i++
	return ev, nil
}

func (s *fakeStream) Close() error { return nil }

type memRecorder struct {
	mu      sync.Mutex
	events  []protocol.Event
	items   []protocol.ResponseItem
	flushes int
	// compacted are the RecordCompacted calls.
	compacted []compactedRecord
}

type compactedRecord struct {
	message     string
	replacement []protocol.ResponseItem
}

func (r *memRecorder) RecordCompacted(message string, replacement []protocol.ResponseItem) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.compacted = append(r.compacted, compactedRecord{message, replacement})
	return nil
}

func (r *memRecorder) RecordItems(items []protocol.ResponseItem) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.items = append(r.items, items...)
	return nil
}

func (r *memRecorder) RecordEvent(ev protocol.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
	return nil
}

func (r *memRecorder) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushes++
	return nil
}

func writeFile(path, content string) error { return os.WriteFile(path, []byte(content), 0o644) }
