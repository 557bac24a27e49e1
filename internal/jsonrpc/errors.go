package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gocodex/gocodex/protocol"
)

// Error codes. The -32001 overload code and its message are Codex's (app-server error_code.rs).
const (
	CodeParseError     int64 = -32700
	CodeInvalidRequest int64 = -32600
	CodeMethodNotFound int64 = -32601
	CodeInvalidParams  int64 = -32602
	CodeInternalError  int64 = -32603
	CodeOverloaded     int64 = -32001
)

// OverloadedMessage is the text of a -32001 error; clients retry on it.
const OverloadedMessage = "Server overloaded; retry later."

// Error is a JSON-RPC error object. It is also a Go error, so handlers return it as is.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// Errorf builds an *Error with a formatted message.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// MethodNotFound names the method, so a client sees what it got wrong.
func MethodNotFound(method string) *Error {
	return &Error{Code: CodeMethodNotFound, Message: "Method not found: " + method}
}

// InvalidParams is a -32602 error; msg says which parameter and why.
func InvalidParams(msg string) *Error {
	return &Error{Code: CodeInvalidParams, Message: "Invalid params: " + msg}
}

// Overloaded is the retryable -32001 error a full server answers with.
func Overloaded() *Error { return &Error{Code: CodeOverloaded, Message: OverloadedMessage} }

// AsError turns any handler error into a wire error: an *Error (also wrapped) passes through,
// anything else is an internal error carrying its text.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternalError, Message: err.Error()}
}

// ErrClosed is returned by calls on a connection that has ended.
var ErrClosed = errors.New("jsonrpc: connection closed")

// RecoverID looks for a top-level "id" member in what may be a broken or truncated object, so
// the error answering it can carry the id. It reads members only until the id is found.
func RecoverID(data []byte) ID {
	var id ID
	_ = protocol.ObjectMembers(data, func(key string, value []byte) bool {
		if key != "id" {
			return true
		}
		if id.UnmarshalJSON(value) != nil {
			id = ID{}
		}
		return false
	})
	return id
}
