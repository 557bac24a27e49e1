package hooks

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gocodex/gocodex/internal/proctree"
)

// OutputLimit caps what is kept of each of a hook's stdout and stderr; the rest is read and
// dropped, so a hook printing without end neither fills memory nor blocks on its pipe.
const OutputLimit = 1 << 20

// waitDelay is how long a killed hook's pipes may stay open (a child it left behind).
const waitDelay = 2 * time.Second

// capped keeps the first OutputLimit bytes written to it.
type capped struct {
	buf       bytes.Buffer
	truncated bool
}

func (c *capped) Write(p []byte) (int, error) {
	room := OutputLimit - c.buf.Len()
	if room < len(p) {
		c.truncated = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}

// commandResult is how one hook process ended.
type commandResult struct {
	stdout, stderr  capped
	exitCode        int
	timedOut        bool
	startErr        error
	signaled        bool
	durationElapsed time.Duration
}

// runCommand runs command under /bin/bash -c in cwd with stdin, killing its whole process
// group at the timeout or when ctx ends.
func runCommand(ctx context.Context, command, cwd string, stdin []byte, timeout time.Duration, environ []string,
	confine func(context.Context, []string, string, []string) (*exec.Cmd, error)) *commandResult {
	res := &commandResult{}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if _, err := os.Stat(cwd); cwd == "" || err != nil {
		cwd = ""
	}
	argv := []string{"/bin/bash", "-c", command}
	var cmd *exec.Cmd
	if confine != nil {
		c, err := confine(tctx, argv, cwd, environ)
		if err != nil {
			// A sandbox that cannot be applied is an error, never a silent fallback.
			res.startErr = err
			return res
		}
		cmd = c
	} else {
		cmd = exec.CommandContext(tctx, argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = cwd, environ
	}
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &res.stdout, &res.stderr
	proctree.Prepare(cmd)
	var tree atomic.Pointer[proctree.Tree]
	cmd.Cancel = func() error {
		if t := tree.Load(); t != nil {
			return t.Kill()
		}
		return cmd.Process.Kill()
	}
	cmd.WaitDelay = waitDelay
	start := time.Now()
	err := cmd.Start()
	if err == nil {
		var t *proctree.Tree
		if t, err = proctree.Attach(cmd); err == nil {
			tree.Store(t)
			defer t.Release()
			err = cmd.Wait()
		} else {
			_ = cmd.Wait()
		}
	}
	res.durationElapsed = time.Since(start)
	var ee *exec.ExitError
	switch {
	case errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		res.timedOut = true
	case err == nil:
	case errors.As(err, &ee):
		res.exitCode = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.signaled = true
		}
	case errors.Is(err, exec.ErrWaitDelay):
		// It exited; something it started kept the pipes open and was cut off.
		res.exitCode = cmd.ProcessState.ExitCode()
	default:
		res.startErr = err
	}
	return res
}
