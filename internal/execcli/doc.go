// Package execcli holds the output side of the `exec` face: the `--json` JSONL writer, the
// human-readable writer, and `--output-last-message`. The cobra command and the engine
// wiring live elsewhere; they feed every protocol.Event of the thread to one writer, in
// order, from one goroutine, and ask it afterwards whether the turn failed.
package execcli

import "github.com/gocodex/gocodex/protocol"

// Writer is what the exec command drives: both writers implement it.
type Writer interface {
	// Handle writes whatever the event means for this output. An error is an I/O failure.
	Handle(ev protocol.Event) error
	// TurnFailed reports whether a turn ended in failure (exit status 1).
	TurnFailed() bool
	// LastAgentMessage is the final message of the last completed turn, for -o.
	LastAgentMessage() (string, bool)
}
