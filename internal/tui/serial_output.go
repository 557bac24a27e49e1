package tui

import (
	"io"
	"os"
	"sync"
)

// serialWriter makes the program's writes one at a time. bubbletea writes frames from its
// renderer goroutine and the lines inline mode prints above the program from its event
// loop, under two different locks: unserialized, the two can interleave on the terminal
// (and race on any other writer).
type serialWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *serialWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// serialFile is a serialWriter over a terminal that still offers what bubbletea's terminal
// checks need (its descriptor, for raw mode and the window size).
type serialFile struct {
	*serialWriter
	f *os.File
}

func (s serialFile) Read(p []byte) (int, error) { return s.f.Read(p) }
func (s serialFile) Close() error               { return s.f.Close() }
func (s serialFile) Fd() uintptr                { return s.f.Fd() }

// serialOutput wraps the program's output.
func serialOutput(w io.Writer) io.Writer {
	if w == nil {
		w = os.Stdout
	}
	sw := &serialWriter{w: w}
	if f, ok := w.(*os.File); ok {
		return serialFile{serialWriter: sw, f: f}
	}
	return sw
}
