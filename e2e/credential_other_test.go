//go:build !unix

package e2e

import "os/exec"

// credential is a user a test runs gocodex as; only Unix tests switch users.
type credential struct{ Uid, Gid uint32 }

// runAsUser does nothing here: no test switches users off Unix.
func runAsUser(*exec.Cmd, *credential) {}
