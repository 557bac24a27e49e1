package e2e

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"
)

// ptyScreen collects what the program wrote to its terminal.
type ptyScreen struct {
	mu      sync.Mutex
	out     []byte
	changed chan struct{} // signalled after every read
	done    chan struct{} // closed when the terminal is closed
}

func (s *ptyScreen) read(r io.Reader) {
	defer close(s.done)
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			s.mu.Lock()
			s.out = append(s.out, buf[:n]...)
			s.mu.Unlock()
			select {
			case s.changed <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

// text is everything written so far with escape sequences and white space removed: the
// renderer moves the cursor between cells, so only the letters are reliably contiguous.
func (s *ptyScreen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(strings.Fields(ansi.Strip(string(s.out))), "")
}

// waitFor waits until want (compared without white space) has appeared after the first
// `after` bytes of the compacted text, and returns the length of the text at that point.
func (s *ptyScreen) waitFor(t *testing.T, want string, after int) int {
	t.Helper()
	want = strings.Join(strings.Fields(want), "")
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	for {
		txt := s.text()
		if after <= len(txt) {
			if i := strings.Index(txt[after:], want); i >= 0 {
				return after + i + len(want)
			}
		}
		select {
		case <-s.changed:
		case <-s.done:
			if !strings.Contains(s.text()[min(after, len(s.text())):], want) {
				t.Fatalf("terminal closed before %q appeared; screen text:\n%s", want, s.text())
			}
		case <-deadline.C:
			t.Fatalf("%q did not appear on screen; screen text:\n%s", want, s.text())
		}
	}
}

// TestTUIConversationApprovalAndQuit runs the interactive UI in a real pseudo-terminal:
// a typed prompt is answered on screen, a command asks for approval and runs after `y`, and
// two Ctrl+C end the program.
func TestTUIConversationApprovalAndQuit(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(
		answer("PONGANSWERONE"),
		commandCall("call_1", "touch marker"),
		answer("COMMANDDONETWO"),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "-a", "untrusted", "-s", "danger-full-access")
	cmd.Dir = e.Workdir
	cmd.Env = append(e.environ(), "TERM=xterm-256color")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 100})
	if err != nil {
		t.Fatalf("start in a pty: %v", err)
	}
	defer tty.Close()
	screen := &ptyScreen{changed: make(chan struct{}, 1), done: make(chan struct{})}
	go screen.read(tty)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	typeKeys := func(s string) {
		t.Helper()
		if _, err := io.WriteString(tty, s); err != nil {
			t.Fatalf("type %q: %v", s, err)
		}
	}

	// The composer is on screen (and the terminal in raw mode) before anything is typed.
	pos := screen.waitFor(t, "Ask gocodex to do anything", 0)
	screen.waitFor(t, "approval: untrusted", 0)
	typeKeys("say pong")
	typeKeys("\r")
	pos = screen.waitFor(t, "PONGANSWERONE", pos)
	pos = screen.waitFor(t, "Token usage:", pos)

	typeKeys("make a marker\r")
	pos = screen.waitFor(t, "Would you like to run the following command?", pos)
	screen.waitFor(t, "touch marker", pos)
	typeKeys("y")
	pos = screen.waitFor(t, "You approved gocodex to run touch marker this time", pos)
	pos = screen.waitFor(t, "COMMANDDONETWO", pos)
	if _, err := os.Stat(filepath.Join(e.Workdir, "marker")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	screen.waitFor(t, "Token usage:", pos)

	typeKeys("\x03")
	screen.waitFor(t, "Press Ctrl+C again to quit", pos)
	typeKeys("\x03")
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("wait: %v", err)
		}
		if err != nil {
			t.Errorf("gocodex exited with %v; screen text:\n%s", err, screen.text())
		}
	case <-ctx.Done():
		t.Fatalf("gocodex did not exit after two Ctrl+C; screen text:\n%s", screen.text())
	}
	if n := len(e.Model.Requests()); n != 3 {
		t.Errorf("%d model requests, want 3", n)
	}
}
