//go:build unix

package proctree

import (
	"errors"
	"os/exec"
	"syscall"
)

type treeSys struct{}

func prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// A wrapper that asked for a new session already leads a group of its own (setpgid
	// would fail on a session leader).
	if !cmd.SysProcAttr.Setsid {
		cmd.SysProcAttr.Setpgid = true
	}
}

func attach(*Tree) error { return nil }

func (t *Tree) kill() error { return killGroup(t.pid) }

func (t *Tree) release() {}

func prepareGroup(cmd *exec.Cmd) {
	prepare(cmd)
	dieWithParent(cmd.SysProcAttr)
}

func killGroup(pid int) error {
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
