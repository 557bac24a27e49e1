package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// supervise is the helper as the first process (init) of the command's PID namespace. It
// builds the view, starts the command from a thread confined for good, passes on the signals
// it is sent, reaps orphans, and when the command ends it ends everything the command left
// running (nothing started in the sandbox outlives it), releases its placeholders and exits
// with the command's status. When gocodex is gone (its end of the lifeline broke) the command
// is ended the same way: nothing is left to read its output or stop it.
func supervise(h helperArgs, path string) int {
	if os.Getpid() != 1 {
		return refuse(errors.New("the namespaces mechanism needs a new PID namespace (start the helper through sandbox.Command)"))
	}
	roots := WritableRoots(h.policy, h.policyCwd, os.Getenv)
	v, err := buildView(roots, credentialPaths(h.codexHome))
	defer releaseNames(v.names)
	if err != nil {
		return refuse(err)
	}
	// Signals sent to the helper go on to the command; those a terminal sends reach the
	// command by itself when it shares the helper's terminal.
	forward := []os.Signal{unix.SIGHUP, unix.SIGTERM, unix.SIGUSR1, unix.SIGUSR2, unix.SIGCONT}
	if !hasControllingTerminal() {
		forward = append(forward, unix.SIGINT, unix.SIGQUIT, unix.SIGWINCH)
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, forward...)
	defer signal.Stop(sigs)

	pid, err := startConfined(h, roots, path)
	if err != nil {
		return refuse(err)
	}
	exited := make(chan unix.WaitStatus, 1)
	go reap(pid, exited)
	orphaned := make(chan struct{})
	if h.lifelineFD >= 0 {
		go awaitBrokenPipe(h.lifelineFD, orphaned)
	}
	for {
		select {
		case sig := <-sigs:
			// -1 from init: every other process of the namespace.
			_ = unix.Kill(-1, sig.(syscall.Signal))
		case <-orphaned:
			orphaned = nil
			_ = unix.Kill(-1, unix.SIGKILL)
		case ws := <-exited:
			endNamespace()
			if ws.Signaled() {
				return 128 + int(ws.Signal())
			}
			return ws.ExitStatus()
		}
	}
}

// startConfined confines a dedicated OS thread and starts the command from it, so the
// command inherits exactly that thread's restrictions. The thread is never unlocked: it ends
// with its goroutine, while the rest of the helper keeps what it needs to clean up.
func startConfined(h helperArgs, roots []WritableRoot, path string) (int, error) {
	type started struct {
		pid int
		err error
	}
	done := make(chan started, 1)
	go func() {
		runtime.LockOSThread()
		if err := confineThread(h, roots); err != nil {
			done <- started{err: err}
			return
		}
		pid, err := syscall.ForkExec(path, h.argv, &syscall.ProcAttr{
			Dir: h.commandCwd, Env: os.Environ(), Files: []uintptr{0, 1, 2},
		})
		if err != nil {
			err = fmt.Errorf("start %s: %w", h.argv[0], err)
		}
		done <- started{pid, err}
	}()
	s := <-done
	return s.pid, s.err
}

// reap collects every child that ends (orphans are re-parented to init) until the command
// itself does, and reports its status.
func reap(pid int, exited chan<- unix.WaitStatus) {
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			exited <- unix.WaitStatus(0x7f00) // ECHILD: cannot happen while the command lives
			return
		}
		if got == pid {
			exited <- ws
			return
		}
	}
}

// endNamespace kills what the command left behind and waits for it, so that nothing runs
// when the placeholders come off.
func endNamespace() {
	_ = unix.Kill(-1, unix.SIGKILL)
	for {
		var ws unix.WaitStatus
		if _, err := unix.Wait4(-1, &ws, 0, nil); err != nil && !errors.Is(err, unix.EINTR) {
			return
		}
	}
}

// awaitBrokenPipe closes orphaned when the read end of the pipe whose write end is fd has
// been closed everywhere: gocodex has gone.
func awaitBrokenPipe(fd int, orphaned chan<- struct{}) {
	fds := []unix.PollFd{{Fd: int32(fd)}} // POLLERR is reported whatever the events asked
	for {
		if _, err := unix.Poll(fds, -1); err != nil && !errors.Is(err, unix.EINTR) {
			return
		}
		if fds[0].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0 {
			close(orphaned)
			return
		}
	}
}

func hasControllingTerminal() bool {
	fd, err := unix.Open("/dev/tty", unix.O_RDONLY|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}
