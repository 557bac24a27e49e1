package e2e

import (
	"context"
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

	tk "github.com/gocodex/gocodex/internal/testkit"
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

// tuiSession is gocodex's interactive UI running in a pseudo-terminal.
type tuiSession struct {
	t      *testing.T
	tty    *os.File
	screen *ptyScreen
	exited chan error
	ctx    context.Context
}

func (e *env) startTUI(args ...string) *tuiSession {
	e.t.Helper()
	e.trustWorkdir()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	e.t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = e.Workdir
	cmd.Env = append(e.environ(), "TERM=xterm-256color")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 100})
	if err != nil {
		e.t.Fatalf("start in a pty: %v", err)
	}
	e.t.Cleanup(func() { tty.Close() })
	s := &tuiSession{t: e.t, tty: tty, ctx: ctx, exited: make(chan error, 1),
		screen: &ptyScreen{changed: make(chan struct{}, 1), done: make(chan struct{})}}
	go s.screen.read(tty)
	go func() { s.exited <- cmd.Wait() }()
	return s
}

// typeKeys writes to the terminal as if typed.
func (s *tuiSession) typeKeys(keys string) {
	s.t.Helper()
	if _, err := io.WriteString(s.tty, keys); err != nil {
		s.t.Fatalf("type %q: %v", keys, err)
	}
}

// quit presses Ctrl+C twice and waits for a clean exit.
func (s *tuiSession) quit(pos int) {
	s.t.Helper()
	s.typeKeys("\x03")
	s.screen.waitFor(s.t, "Press Ctrl+C again to quit", pos)
	s.typeKeys("\x03")
	select {
	case err := <-s.exited:
		if err != nil {
			s.t.Errorf("gocodex exited with %v; screen text:\n%s", err, s.screen.text())
		}
	case <-s.ctx.Done():
		s.t.Fatalf("gocodex did not exit after two Ctrl+C; screen text:\n%s", s.screen.text())
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
	s := e.startTUI("-a", "untrusted", "-s", "danger-full-access")
	// The composer is on screen (and the terminal in raw mode) before anything is typed.
	pos := s.screen.waitFor(t, "Ask gocodex to do anything", 0)
	s.screen.waitFor(t, "approval: untrusted", 0)
	s.typeKeys("say pong")
	s.typeKeys("\r")
	pos = s.screen.waitFor(t, "PONGANSWERONE", pos)
	pos = s.screen.waitFor(t, "Token usage:", pos)

	s.typeKeys("make a marker\r")
	pos = s.screen.waitFor(t, "Would you like to run the following command?", pos)
	s.screen.waitFor(t, "touch marker", pos)
	s.typeKeys("y")
	pos = s.screen.waitFor(t, "You approved gocodex to run touch marker this time", pos)
	pos = s.screen.waitFor(t, "COMMANDDONETWO", pos)
	if _, err := os.Stat(filepath.Join(e.Workdir, "marker")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	pos = s.screen.waitFor(t, "Token usage:", pos)
	s.quit(pos)
	if n := len(e.Model.Requests()); n != 3 {
		t.Errorf("%d model requests, want 3", n)
	}
}

// TestTUIInitialPromptAndInterrupt starts with a PROMPT argument whose answer never ends;
// Esc interrupts the turn and the UI says so.
func TestTUIInitialPromptAndInterrupt(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(tk.Stall(3, tk.Created(), tk.AssistantMessageStream("msg_1", "PARTIALANSWER", " and more")))
	s := e.startTUI("start working")
	pos := s.screen.waitFor(t, "start working", 0)
	pos = s.screen.waitFor(t, "PARTIALANSWER", pos)
	s.screen.waitFor(t, "esc to interrupt", 0)
	s.typeKeys("\x1b")
	pos = s.screen.waitFor(t, "Conversation interrupted", pos)
	s.quit(pos)
}

// With no credentials, the UI opens on the sign-in screen; an API key pasted there is stored
// (auth.json, 0600) and the conversation that follows uses it.
func TestTUISignInWithAPIKey(t *testing.T) {
	e := newEnv(t)
	cfg := "model = \"gpt-5.5\"\nopenai_base_url = \"" + e.Model.URL() + "/v1\"\n"
	if err := os.WriteFile(filepath.Join(e.CodexHome, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	e.Model.Enqueue(answer("SIGNEDINANSWER"))
	s := e.startTUI("-s", "read-only")
	pos := s.screen.waitFor(t, "Sign in with ChatGPT", 0)
	pos = s.screen.waitFor(t, "Provide your own API key", pos)
	s.typeKeys("3\r")
	pos = s.screen.waitFor(t, "Paste your API key", pos)
	s.typeKeys("sk-tui-0123456789abc\r")
	pos = s.screen.waitFor(t, "Ask gocodex to do anything", pos)
	s.typeKeys("hello\r")
	pos = s.screen.waitFor(t, "SIGNEDINANSWER", pos)
	s.quit(pos)
	st, err := os.Stat(filepath.Join(e.CodexHome, "auth.json"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("auth.json: %v %v", st, err)
	}
	reqs := e.Model.Requests()
	if len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer sk-tui-0123456789abc" {
		t.Errorf("requests = %d, authorization %q", len(reqs), reqs[0].Header.Get("Authorization"))
	}
}
