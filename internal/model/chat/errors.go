package chat

import (
	"fmt"
	"unicode/utf8"
)

// ResponseError is a reply the chat wire cannot read: a body that is not an event stream, a
// malformed chunk, a tool call whose arguments are not JSON, an unknown finish reason.
// Asking again would not help, so it ends the turn.
type ResponseError struct {
	// Provider is the provider's name (or the endpoint URL when it has none).
	Provider string
	// Status is the HTTP status of the response that carried it.
	Status int
	// Detail says what was wrong.
	Detail string
}

func (e *ResponseError) Error() string {
	return fmt.Sprintf("model provider %s (HTTP %d) %s", e.Provider, e.Status, e.Detail)
}

// snippet quotes the start of a payload for an error message.
func snippet(b []byte) string {
	const max = 200
	if len(b) > max {
		b = b[:max]
		for len(b) > 0 && !utf8.Valid(b) {
			b = b[:len(b)-1]
		}
		return fmt.Sprintf("%q...", b)
	}
	return fmt.Sprintf("%q", b)
}
