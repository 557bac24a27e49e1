package tui

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/gocodex/gocodex/protocol"
)

// TestRunPumpsEventsAndShutsDown drives Run through its input stream: a typed message goes
// out as user_input, the engine's answer comes back through the pump, and two Ctrl+C end
// the program once shutdown_complete arrived; the pump goroutine is gone afterwards (goleak).
func TestRunPumpsEventsAndShutsDown(t *testing.T) {
	eng := newFakeEngine()
	answered := make(chan struct{})
	eng.onSubmit = func(op protocol.Op) {
		switch op.(type) {
		case protocol.UserInputOp:
			eng.events <- protocol.Event{ID: "1", Msg: protocol.TurnStartedEvent{TurnID: "t1"}}
			eng.events <- protocol.Event{ID: "1", Msg: protocol.AgentMessageEvent{Message: "pong"}}
			eng.events <- protocol.Event{ID: "1", Msg: protocol.TurnCompleteEvent{TurnID: "t1"}}
			close(answered)
		case protocol.ShutdownOp:
			eng.events <- protocol.Event{ID: "2", Msg: protocol.ShutdownCompleteEvent{}}
			close(eng.events)
		}
	}
	inR, inW := io.Pipe()
	defer inW.Close()
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), Options{Engine: eng, Header: Header{Model: "m"}, Prompt: "ping", In: inR, Out: &out, Env: []string{"TERM=dumb"}})
	}()
	select {
	case <-answered:
	case <-time.After(30 * time.Second):
		t.Fatal("the initial prompt was never submitted")
	}
	if _, err := io.WriteString(inW, "\x03\x03"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not end after two Ctrl+C")
	}
	var sawInput, sawShutdown bool
	for _, op := range eng.takeOps() {
		switch op.(type) {
		case protocol.UserInputOp:
			sawInput = true
		case protocol.ShutdownOp:
			sawShutdown = true
		}
	}
	if !sawInput || !sawShutdown {
		t.Errorf("ops: user_input %v, shutdown %v; want both", sawInput, sawShutdown)
	}
}
