package execcli

import (
	"fmt"
	"os"
)

// WriteLastMessage writes the final agent message to path for -o/--output-last-message,
// as Codex does: the text exactly, no newline added; an empty file when the turn produced
// no message (a failed turn).
func WriteLastMessage(path string, w Writer) error {
	msg, _ := w.LastAgentMessage()
	if err := os.WriteFile(path, []byte(msg), 0o644); err != nil {
		return fmt.Errorf("write last message to %s: %w", path, err)
	}
	return nil
}
