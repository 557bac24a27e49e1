package e2e

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// tmuxPane is a program running in a real terminal emulator (a detached tmux session on its
// own server socket), which answers the terminal queries a UI sends at start-up the way a
// person's terminal does, and whose screen capture-pane reads back.
type tmuxPane struct {
	t      testing.TB
	socket string
	pid    int
}

// startTmux runs bin with args in a new cols×rows tmux session, in dir, with exactly env.
func startTmux(t testing.TB, env []string, dir string, cols, rows int, bin string, args ...string) *tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	quoted := []string{"exec", "env", "-i"}
	for _, kv := range env {
		quoted = append(quoted, shellQuote(kv))
	}
	quoted = append(quoted, shellQuote(bin))
	for _, a := range args {
		quoted = append(quoted, shellQuote(a))
	}
	p := &tmuxPane{t: t, socket: filepath.Join(t.TempDir(), "tmux.sock")}
	p.tmux("-f", "/dev/null", "new-session", "-d", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows),
		"-c", dir, strings.Join(quoted, " "))
	t.Cleanup(p.kill)
	pid, err := strconv.Atoi(strings.TrimSpace(p.tmux("list-panes", "-F", "#{pane_pid}")))
	if err != nil {
		t.Fatalf("tmux pane pid: %v", err)
	}
	p.pid = pid
	return p
}

func (p *tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// capture is the visible screen as text.
func (p *tmuxPane) capture() string { return p.tmux("capture-pane", "-p") }

// sendKeys types keys (tmux key names such as Enter, C-c, or literal text with literal).
func (p *tmuxPane) sendKeys(literal bool, keys ...string) {
	args := []string{"send-keys", "-t", "0"}
	if literal {
		args = append(args, "-l")
	}
	p.tmux(append(args, keys...)...)
}

func (p *tmuxPane) kill() {
	exec.Command("tmux", "-S", p.socket, "kill-server").Run()
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
