package tui

import (
	"os"
	"os/signal"
	"syscall"
)

// onHangup ends the program on SIGHUP (the terminal closed, or someone sent it) the way
// SIGTERM does: the program stops, the terminal is restored as far as it still exists, and
// the thread, already recorded turn by turn, stays resumable. Without it SIGHUP would kill
// the process with the terminal still raw. The returned function stops listening.
func onHangup(stop func()) func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	done := make(chan struct{})
	go func() { // owned by Run: ends when the returned function is called
		select {
		case <-ch:
			stop()
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
