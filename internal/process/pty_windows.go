//go:build windows

package process

import "errors"

// ErrTTYUnsupported is the error of a TTY command on Windows: gocodex has no pseudo-console
// (ConPTY) yet, and a command that asked for a terminal is not run silently without one.
var ErrTTYUnsupported = errors.New("tty: true is not supported on Windows yet (gocodex has no ConPTY support); run the command without tty")

func (p *Process) startPTY(Spec) error { return ErrTTYUnsupported }

func (p *Process) closeTerminal() {}

// Resize fails: no process has a terminal on Windows.
func (p *Process) Resize(rows, cols uint16) error { return ErrNotTTY }
