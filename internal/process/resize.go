package process

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// ErrNotTTY is returned by Resize for a process that runs without a terminal.
var ErrNotTTY = errors.New("process has no terminal")

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
