// Package proctree ends a command together with everything it started. On Unix the command
// leads a process group of its own (or a session, when a wrapper asked for one) and a kill
// reaches the whole group; on Windows it runs in a Job Object and a kill terminates the job.
package proctree

import (
	"errors"
	"os/exec"
)

// Tree is a started command and the processes it starts.
type Tree struct {
	pid int
	sys treeSys
}

// Pid is the command's process id (on Unix also its process group id).
func (t *Tree) Pid() int { return t.pid }

// Prepare readies cmd, before Start, to lead a tree. Every successful Start of a prepared
// command must be followed by Attach: on Windows the process starts suspended and only
// Attach lets it run, once it is in its Job Object, so nothing it starts can escape the job.
func Prepare(cmd *exec.Cmd) { prepare(cmd) }

// Attach completes the tree of a started, prepared command. When it fails the command has
// been killed.
func Attach(cmd *exec.Cmd) (*Tree, error) {
	if cmd.Process == nil {
		return nil, errors.New("proctree: command not started")
	}
	t, err := AttachPid(cmd.Process.Pid)
	if err != nil {
		_ = cmd.Process.Kill()
		return nil, err
	}
	return t, nil
}

// AttachPid is Attach for a process started (suspended, on Windows) by other means than
// os/exec, as a pseudo-console's is. When it fails the caller kills the process.
func AttachPid(pid int) (*Tree, error) {
	t := &Tree{pid: pid}
	if err := attach(t); err != nil {
		return nil, err
	}
	return t, nil
}

// Kill ends every process of the tree. It is harmless when they are gone, and safe to call
// more than once.
func (t *Tree) Kill() error { return t.kill() }

// Release frees what the tree holds (the Job Object's handle on Windows); the processes
// are left as they are. Kill no longer works after it.
func (t *Tree) Release() { t.release() }

// PrepareGroup readies a command that someone else starts (and so cannot be attached, as
// an MCP server's is): its own process group on Unix, dying with this process where the
// system can arrange it (Linux), its own console process group on Windows. KillGroup ends it.
func PrepareGroup(cmd *exec.Cmd) { prepareGroup(cmd) }

// KillGroup ends a command prepared with PrepareGroup and what it started: its process
// group on Unix; on Windows the process and its descendants, found by their parent ids.
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return killGroup(cmd.Process.Pid)
}
