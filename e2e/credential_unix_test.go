//go:build unix

package e2e

import (
	"os/exec"
	"syscall"
)

// credential is a user a test runs gocodex as (the attack suites use nobody).
type credential = syscall.Credential

// runAsUser makes cmd run as c (nil: as this process's user).
func runAsUser(cmd *exec.Cmd, c *credential) {
	if c != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c}
	}
}
