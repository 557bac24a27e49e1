package tui

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
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
		done <- Run(context.Background(), Options{Engine: eng, Header: Header{Model: "m"}, Prompt: "ping", In: inR, Out: &out, Env: []string{"TERM=xterm-256color"}})
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

// With TERM=dumb the UI is a plain line mode: cells are printed once as plain text, an
// approval is answered by a line, and the end of input shuts the thread down.
func TestPlainLineMode(t *testing.T) {
	eng := newFakeEngine()
	eng.onSubmit = func(op protocol.Op) {
		switch op := op.(type) {
		case protocol.UserInputOp:
			eng.events <- protocol.Event{ID: "1", Msg: protocol.TurnStartedEvent{TurnID: "t1"}}
			eng.events <- protocol.Event{ID: "1", Msg: protocol.ExecApprovalRequestEvent{CallID: "c1", TurnID: "t1", Command: []string{"touch", "x"}, Cwd: "/w"}}
		case protocol.ExecApprovalOp:
			eng.events <- protocol.Event{ID: "1", Msg: protocol.AgentMessageEvent{Message: "**done** with " + string(op.Decision.Kind)}}
			eng.events <- protocol.Event{ID: "1", Msg: protocol.TurnCompleteEvent{TurnID: "t1"}}
		case protocol.ShutdownOp:
			eng.events <- protocol.Event{ID: "2", Msg: protocol.ShutdownCompleteEvent{}}
			close(eng.events)
		}
	}
	ps := startPlain(t, Options{Engine: eng, Header: Header{Model: "m", Cwd: "/w"}})
	out := ps.out
	ps.write("make x\n")
	ps.waitOut("Would you like to run the following command?")
	ps.waitOut("Answer with y, a, p, n or esc:")
	ps.write("a\n")
	ps.waitOut("done with approved_for_session")
	ps.write("/status\n")
	ps.waitOut("Collaboration mode:")
	ps.finish()
	if strings.Contains(out.String(), "\x1b") {
		t.Errorf("escape sequences on a dumb terminal:\n%q", out.String())
	}
	if !strings.Contains(out.String(), "• done with approved_for_session") {
		t.Errorf("output:\n%s", out.String())
	}
}

// syncBuffer is a bytes.Buffer safe to read while Run writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// plainSession is Run on a dumb terminal fed through a pipe.
type plainSession struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *syncBuffer
	done chan error
}

// startPlain runs the UI in its plain line mode (TERM=dumb) with o's engine and host.
func startPlain(t *testing.T, o Options) *plainSession {
	inR, inW := io.Pipe()
	ps := &plainSession{t: t, in: inW, out: &syncBuffer{}, done: make(chan error, 1)}
	o.In, o.Out, o.Env = inR, ps.out, []string{"TERM=dumb"}
	go func() { ps.done <- Run(context.Background(), o) }()
	return ps
}

func (ps *plainSession) write(s string) { io.WriteString(ps.in, s) }

// waitOut waits until want was printed.
func (ps *plainSession) waitOut(want string) {
	ps.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(ps.out.String(), want) {
		if time.Now().After(deadline) {
			ps.t.Fatalf("%q never printed; output:\n%s", want, ps.out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// finish ends the input and waits for Run to return.
func (ps *plainSession) finish() {
	ps.t.Helper()
	ps.in.Close()
	select {
	case err := <-ps.done:
		if err != nil {
			ps.t.Fatalf("Run: %v", err)
		}
	case <-time.After(30 * time.Second):
		ps.t.Fatal("Run did not end at the end of input")
	}
}
