//go:build unix

package process

import (
	"context"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

func TestWrapperWithOwnSession(t *testing.T) {
	wrap := func(ctx context.Context, argv []string, cwd string, env []string) (*exec.Cmd, error) {
		cmd, err := PlainCommand(ctx, argv, cwd, env)
		if err == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		}
		return cmd, err
	}
	for _, tty := range []bool{false, true} {
		r, err := Run(context.Background(), Spec{Argv: sh("echo ok"), TTY: tty, Spawner: wrap}, 0)
		if err != nil {
			t.Fatalf("tty=%v: %v", tty, err)
		}
		if got := strings.TrimRight(r.Aggregated.Text(), "\r\n"); got != "ok" {
			t.Errorf("tty=%v: output %q", tty, got)
		}
	}
}
