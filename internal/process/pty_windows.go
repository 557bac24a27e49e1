//go:build windows

package process

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/charmbracelet/x/conpty"
	"golang.org/x/sys/windows"

	"github.com/gocodex/gocodex/internal/proctree"
)

// terminal is the pseudo-console (ConPTY) of a TTY command.
type terminal struct {
	console   *conpty.ConPty
	closeOnce sync.Once
}

// startPTY runs the command on a new pseudo-console. The command line the spawner built is
// started by the console itself (CreateProcess with the console attribute), suspended until
// it is in its Job Object, as proctree does for piped commands.
func (p *Process) startPTY(spec Spec) error {
	cmd := p.cmd
	if cmd.Err != nil {
		return cmd.Err
	}
	rows, cols := termSize(spec)
	console, err := conpty.New(int(cols), int(rows), 0)
	if err != nil {
		return fmt.Errorf("open pseudo-console: %w", err)
	}
	// Reads and writes go through duplicates this process owns: Close of the console closes
	// its own handles while a reader may still be in ReadFile.
	out, err := dupFile(console.OutPipeReadFd(), "conpty-out")
	if err != nil {
		console.Close()
		return err
	}
	in, err := dupFile(console.InPipeWriteFd(), "conpty-in")
	if err != nil {
		closeAll(out)
		console.Close()
		return err
	}
	fail := func(err error) error {
		closeAll(out, in)
		console.Close()
		return err
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	attr := &syscall.ProcAttr{Dir: cmd.Dir, Env: env, Sys: &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED}}
	pid, handle, err := console.Spawn(cmd.Path, cmd.Args, attr)
	if err != nil {
		return fail(fmt.Errorf("start on the pseudo-console: %w", err))
	}
	proc, err := os.FindProcess(pid) // a handle of its own, to wait on
	if err == nil {
		if p.tree, err = proctree.AttachPid(pid); err != nil {
			_ = proc.Kill()
			_, _ = proc.Wait()
		}
	}
	windows.CloseHandle(windows.Handle(handle))
	if err != nil {
		return fail(err)
	}
	p.start = time.Now()
	p.proc = proc
	p.wait = proc.Wait
	p.term.console = console
	p.stdin = in
	p.reads = []*os.File{out}
	p.startReaders(map[Stream]*os.File{Stdout: out})
	return nil
}

func dupFile(h uintptr, name string) (*os.File, error) {
	self := windows.CurrentProcess()
	var dup windows.Handle
	if err := windows.DuplicateHandle(self, windows.Handle(h), self, &dup, 0, false, windows.DUPLICATE_SAME_ACCESS); err != nil {
		return nil, fmt.Errorf("duplicate the pseudo-console's pipe: %w", err)
	}
	return os.NewFile(uintptr(dup), name), nil
}

// afterExit closes the pseudo-console once the command is gone: the console's own end of the
// output pipe closes with it, so the reader sees the end of the output instead of waiting.
func (p *Process) afterExit() { p.closeTerminal() }

func (p *Process) closeTerminal() {
	if p.term.console == nil {
		return
	}
	p.term.closeOnce.Do(func() { _ = p.term.console.Close() })
}

// Resize sets the size of a TTY process's pseudo-console.
func (p *Process) Resize(rows, cols uint16) error {
	if p.term.console == nil {
		return ErrNotTTY
	}
	select {
	case <-p.done:
		return fmt.Errorf("resize pseudo-console: %w", os.ErrClosed)
	default:
	}
	if err := p.term.console.Resize(int(cols), int(rows)); err != nil {
		return fmt.Errorf("resize pseudo-console: %w", err)
	}
	return nil
}
