// Package proto is the `gocodex proto` face: Submission JSONL on stdin, Event JSONL on
// stdout, nothing else. It is the thinnest adapter over a thread, useful to drive the engine
// from any language and to test it end to end.
package proto

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/gocodex/gocodex/protocol"
)

// maxLine bounds one submission line; longer lines are rejected, not buffered forever.
const maxLine = 16 << 20

// Thread is what the face needs of an engine thread.
type Thread interface {
	SubmitWithID(id string, op protocol.Op) error
	NextEvent(ctx context.Context) (protocol.Event, error)
}

// Run pumps submissions from in to the thread and events from the thread to out until the
// thread shuts down. When in ends, the thread is asked to shut down. Invalid lines are
// reported on errOut and skipped: one bad line never ends the session.
func Run(ctx context.Context, th Thread, in io.Reader, out, errOut io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		readSubmissions(ctx, th, in, errOut)
	}()
	defer wg.Wait()

	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // Codex writes `<` and `>` as they are
	for {
		ev, err := th.NextEvent(ctx)
		if err != nil {
			cancel()
			if errors.Is(err, context.Canceled) {
				return ctx.Err()
			}
			return nil // the thread is closed: every event has been written
		}
		if err := enc.Encode(ev); err != nil {
			cancel()
			return fmt.Errorf("write event: %w", err)
		}
		if err := w.Flush(); err != nil {
			cancel()
			return fmt.Errorf("write event: %w", err)
		}
		if ev.Msg != nil && ev.Msg.EventType() == (protocol.ShutdownCompleteEvent{}).EventType() {
			cancel()
			return nil
		}
	}
}

// readSubmissions feeds the thread; at end of input it submits shutdown.
func readSubmissions(ctx context.Context, th Thread, in io.Reader, errOut io.Writer) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if len(trimSpace(line)) == 0 {
			continue
		}
		var sub protocol.Submission
		if err := json.Unmarshal(line, &sub); err != nil {
			fmt.Fprintf(errOut, "invalid submission on line %d: %v\n", n, err)
			continue
		}
		if err := th.SubmitWithID(sub.ID, sub.Op); err != nil {
			fmt.Fprintf(errOut, "submission %q: %v\n", sub.ID, err)
		}
		if ctx.Err() != nil {
			return
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(errOut, "read submissions: %v\n", err)
	}
	if ctx.Err() == nil {
		_ = th.SubmitWithID("shutdown", protocol.ShutdownOp{})
	}
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
