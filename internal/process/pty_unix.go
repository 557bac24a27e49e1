//go:build unix

package process

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/gocodex/gocodex/internal/proctree"
)

// startPTY runs the command on a new pseudo-terminal, as the leader of a session of its
// own with the terminal as its controlling terminal.
func (p *Process) startPTY(spec Spec) error {
	cmd := p.cmd
	ptmx, tty, err := pty.Open()
	if err != nil {
		return fmt.Errorf("open pty: %w", err)
	}
	rows, cols := termSize(spec)
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: rows, Cols: cols}); err != nil {
		closeAll(ptmx, tty)
		return fmt.Errorf("size pty: %w", err)
	}
	// A non-blocking duplicate of the master registers with Go's poller, so reads can be
	// given a deadline when a stray grandchild keeps the terminal open.
	master, err := pollable(ptmx)
	closeAll(ptmx)
	if err != nil {
		closeAll(tty)
		return err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = false // a new session is its own group; both would fail
	cmd.SysProcAttr.Setsid = true
	cmd.SysProcAttr.Setctty = true
	cmd.SysProcAttr.Ctty = 0
	proctree.Prepare(cmd)
	err = p.startTree()
	closeAll(tty)
	if err != nil {
		closeAll(master)
		return err
	}
	p.start = time.Now()
	p.master, p.stdin = master, master
	p.reads = []*os.File{master}
	p.startReaders(map[Stream]*os.File{Stdout: master})
	return nil
}

func pollable(f *os.File) (*os.File, error) {
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return nil, fmt.Errorf("dup pty: %w", err)
	}
	syscall.CloseOnExec(fd)
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("pty nonblock: %w", err)
	}
	return os.NewFile(uintptr(fd), "ptmx"), nil
}

// terminal: nothing beyond the master, which is among the reads and closed with them.
type terminal struct{}

func (p *Process) afterExit()     {}
func (p *Process) closeTerminal() {}

// Resize sets the size of a TTY process's terminal; the kernel then signals SIGWINCH to the
// terminal's foreground process group, as a terminal emulator's resize would. After the
// process is done the terminal is gone and Resize fails.
func (p *Process) Resize(rows, cols uint16) error {
	if p.master == nil {
		return ErrNotTTY
	}
	// Through SyscallConn rather than pty.Setsize: Setsize calls Fd, which would put the
	// non-blocking master back into blocking mode and break the readers' deadlines. Control
	// also keeps the descriptor from being closed and reused under the ioctl.
	sc, err := p.master.SyscallConn()
	if err != nil {
		return fmt.Errorf("resize pty: %w", err)
	}
	var ioErr error
	err = sc.Control(func(fd uintptr) {
		ioErr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols})
	})
	if err == nil {
		err = ioErr
	}
	if err != nil {
		return fmt.Errorf("resize pty: %w", err)
	}
	return nil
}
