package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// toolArg makes the test binary a small probe program for the sandboxed side of the tests, so
// they need neither python nor netcat: it tries one operation and prints "ok" or the errno.
const toolArg = "--sandbox-test-tool"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case HelperArg:
			os.Exit(HelperMain(os.Args[2:]))
		case toolArg:
			os.Exit(tool(os.Args[2:]))
		}
	}
	os.Exit(m.Run())
}

func tool(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "tool: no operation")
		return 2
	}
	var err error
	switch args[0] {
	case "tcp-connect":
		var c net.Conn
		if c, err = net.Dial("tcp4", args[1]); err == nil {
			c.Close()
		}
	case "udp-send":
		var c net.Conn
		if c, err = net.Dial("udp4", args[1]); err == nil {
			_, err = c.Write([]byte("x"))
			c.Close()
		}
	case "socketpair":
		var fds [2]int
		if fds, err = unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0); err == nil {
			_, err = unix.Write(fds[0], []byte("x"))
			unix.Close(fds[0])
			unix.Close(fds[1])
		}
	case "ptrace":
		// PTRACE_TRACEME is harmless when allowed; the test only needs to see whether it is.
		if _, _, errno := unix.RawSyscall(unix.SYS_PTRACE, unix.PTRACE_TRACEME, 0, 0); errno != 0 {
			err = errno
		}
	default:
		fmt.Fprintln(os.Stderr, "tool: unknown operation", args[0])
		return 2
	}
	if err != nil {
		var errno unix.Errno
		if errors.As(err, &errno) {
			fmt.Println(unix.ErrnoName(errno))
		} else {
			fmt.Println(err)
		}
		return 1
	}
	fmt.Println("ok")
	return 0
}
