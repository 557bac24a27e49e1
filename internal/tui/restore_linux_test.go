//go:build !race

// Not under the race detector: a program killed after a panic closes its input reader
// while the reader goroutine still runs (bubbletea does not wait for it when killed), which
// the detector reports although the process is about to end anyway.

package tui

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/protocol"
)

// panickyEngine panics when asked for its first event.
type panickyEngine struct{ fakeEngine }

func (p *panickyEngine) NextEvent(ctx context.Context) (protocol.Event, error) {
	panic("engine exploded")
}

// A panic anywhere in the UI, in Update or in the event pump, ends Run with an
// error and leaves the terminal cooked (canonical mode and echo back on).
func TestPanicRestoresTerminal(t *testing.T) {
	cases := map[string]func() Options{
		"update": func() Options {
			return Options{Engine: newFakeEngine(), RewindFiles: func(context.Context, int) (*Undone, error) { panic("rewind exploded") }}
		},
		"pump": func() Options { return Options{Engine: &panickyEngine{*newFakeEngine()}} },
	}
	for name, opts := range cases {
		t.Run(name, func(t *testing.T) {
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Skipf("no pty: %v", err)
			}
			defer ptmx.Close()
			defer tty.Close()
			go io.Copy(io.Discard, ptmx) // the terminal's screen
			o := opts()
			o.In, o.Out, o.Env = tty, tty, []string{"TERM=xterm-256color"}
			done := make(chan error, 1)
			stderr := os.Stderr
			os.Stderr, _ = os.Open(os.DevNull) // bubbletea prints the panic's stack there
			defer func() { os.Stderr = stderr }()
			go func() { done <- Run(context.Background(), o) }()
			if name == "update" {
				waitRaw(t, tty)
				io.WriteString(ptmx, "/undo\r")
			}
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("Run did not end after the panic")
			}
			if err == nil || (name == "update" && !errors.Is(err, tea.ErrProgramPanic)) {
				t.Errorf("Run returned %v", err)
			}
			tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
			if err != nil {
				t.Fatal(err)
			}
			if tio.Lflag&unix.ICANON == 0 || tio.Lflag&unix.ECHO == 0 {
				t.Errorf("the terminal is still raw after the panic (lflag %#x)", tio.Lflag)
			}
		})
	}
}

// waitRaw waits until the program has put the terminal in raw mode.
func waitRaw(t *testing.T, tty *os.File) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
		if err == nil && tio.Lflag&unix.ICANON == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the terminal never went raw")
}
