package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// toolArg makes the test binary a small probe program for the sandboxed side of the tests, so
// they need neither python nor netcat: it tries one operation and prints "ok" or the errno.
const toolArg = "--sandbox-test-tool"

func TestMain(m *testing.M) {
	// The tests start this binary hundreds of times (helper, tool, shell); a race-enabled
	// binary otherwise sleeps a second at every exit to let late race reports out.
	if os.Getenv("GORACE") == "" {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	if code, ok := DispatchHelper(os.Args); ok {
		os.Exit(code)
	}
	if len(os.Args) > 1 && os.Args[1] == toolArg {
		os.Exit(tool(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == shellArg {
		os.Exit(shellMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// tool runs each "op" or "op=arg" in args and prints one line "op result" per operation,
// where result is "ok" or the errno name.
func tool(args []string) int {
	for _, a := range args {
		op, arg, _ := strings.Cut(a, "=")
		err := toolOp(op, arg)
		result := "ok"
		var errno unix.Errno
		switch {
		case errors.As(err, &errno):
			result = unix.ErrnoName(errno)
		case err != nil:
			result = strings.ReplaceAll(err.Error(), " ", "_")
		}
		fmt.Println(op, result)
	}
	return 0
}

func toolOp(op, arg string) error {
	switch op {
	case "tcp-connect":
		c, err := net.Dial("tcp4", arg)
		if err == nil {
			c.Close()
		}
		return err
	case "udp-send":
		c, err := net.Dial("udp4", arg)
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.Write([]byte("x"))
		return err
	case "socketpair":
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fds[0])
		defer unix.Close(fds[1])
		_, err = unix.Write(fds[0], []byte("x"))
		return err
	case "socketpair-send", "socketpair-dgram":
		// send(2) is sendto without an address; a datagram socketpair is refused with the
		// network restricted (it could also send to an address).
		typ := unix.SOCK_STREAM
		if op == "socketpair-dgram" {
			typ = unix.SOCK_DGRAM
		}
		fds, err := unix.Socketpair(unix.AF_UNIX, typ, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fds[0])
		defer unix.Close(fds[1])
		if err := unix.Sendto(fds[0], []byte("x"), 0, nil); err != nil {
			return err
		}
		_, err = unix.Read(fds[1], make([]byte, 1))
		return err
	case "ptrace":
		// Ask about a process that cannot exist: allowed, ptrace answers ESRCH; denied by the
		// sandbox, EPERM. (PTRACE_TRACEME was used before: it made a thread of this Go process
		// a tracee of the test, and a runtime signal then stopped it for a tracer that never
		// waits, so the process could hang in exit.)
		_, _, errno := unix.RawSyscall(unix.SYS_PTRACE, unix.PTRACE_PEEKDATA, 1<<22+12345, 0)
		if errno == unix.ESRCH {
			return nil
		}
		if errno != 0 {
			return errno
		}
		return nil
	}
	if err, ok := attackOp(op, arg); ok {
		return err
	}
	return fmt.Errorf("unknown operation %s", op)
}
