// Package iostreams is where every face and command of the binary reads and writes: the
// standard streams, whether each is a terminal, and whether colour is wanted (gh's
// pkg/iostreams). Tests build one on buffers with Test.
package iostreams

import (
	"bytes"
	"io"
	"os"

	"github.com/charmbracelet/x/term"
)

// IOStreams are a process's standard streams.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	// Getenv reads the environment (NO_COLOR); nil means os.Getenv.
	Getenv func(string) string
	// terminal overrides terminal detection (SetTerminal, for tests); nil asks the OS.
	terminal *[3]bool
}

// System is the process's own stdin, stdout and stderr.
func System() *IOStreams {
	return &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
}

// Test is streams on buffers: stdin reads in, stdout and stderr are returned. No stream is a
// terminal unless SetTerminal says so.
func Test(in string) (*IOStreams, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	s := &IOStreams{In: bytes.NewBufferString(in), Out: &out, ErrOut: &errOut}
	s.SetTerminal(false, false, false)
	return s, &out, &errOut
}

// SetTerminal fixes what the Is*Terminal methods answer (tests of terminal behaviour).
func (s *IOStreams) SetTerminal(in, out, errOut bool) { s.terminal = &[3]bool{in, out, errOut} }

// IsStdinTerminal reports whether In is a terminal a person types at.
func (s *IOStreams) IsStdinTerminal() bool { return s.isTerminal(0, s.In) }

// IsStdoutTerminal reports whether Out is a terminal (not a pipe or a file).
func (s *IOStreams) IsStdoutTerminal() bool { return s.isTerminal(1, s.Out) }

// IsStderrTerminal reports whether ErrOut is a terminal.
func (s *IOStreams) IsStderrTerminal() bool { return s.isTerminal(2, s.ErrOut) }

func (s *IOStreams) isTerminal(i int, stream any) bool {
	if s == nil {
		return false
	}
	if s.terminal != nil {
		return s.terminal[i]
	}
	return IsTerminal(stream)
}

// ColorStdout and ColorStderr say whether what is written for a person to that stream may be
// coloured: choice is a --color value ("always", "never", "auto" or empty for auto); auto
// colours a terminal unless NO_COLOR is set (no-color.org).
func (s *IOStreams) ColorStdout(choice string) bool { return s.color(choice, s.IsStdoutTerminal) }

// ColorStderr: see ColorStdout.
func (s *IOStreams) ColorStderr(choice string) bool { return s.color(choice, s.IsStderrTerminal) }

func (s *IOStreams) color(choice string, terminal func() bool) bool {
	switch choice {
	case "always":
		return true
	case "never":
		return false
	}
	getenv := s.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	return getenv("NO_COLOR") == "" && terminal()
}

// IsTerminal reports whether stream (an *os.File) is a terminal.
func IsTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	if !ok || f == nil {
		return false
	}
	return term.IsTerminal(f.Fd())
}
