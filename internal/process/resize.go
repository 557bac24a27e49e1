package process

import "errors"

// ErrNotTTY is returned by Resize for a process that runs without a terminal.
var ErrNotTTY = errors.New("process has no terminal")
