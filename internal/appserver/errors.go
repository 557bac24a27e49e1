package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// Error texts Codex answers with (checked against codex 0.169's app-server).
const (
	msgNotInitialized     = "Not initialized"
	msgAlreadyInitialized = "Already initialized"
)

func errNotInitialized() *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msgNotInitialized}
}

func errAlreadyInitialized() *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msgAlreadyInitialized}
}

// InvalidRequest is a -32600 error; Codex prefixes such messages with "Invalid request: ".
func InvalidRequest(msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg}
}

// InvalidParams is a -32602 error: "Invalid params: <msg>".
func InvalidParams(msg string) *jsonrpc.Error { return jsonrpc.InvalidParams(msg) }

// InternalError is a -32603 error carrying msg.
func InternalError(msg string) *jsonrpc.Error { return internalError(msg) }

func internalError(msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
}

// Typed adapts a handler with typed params and result. Absent params are an error, as in
// Codex ("missing field `params`"); JSON that does not fit P is -32602.
func Typed[P, R any](f func(ctx context.Context, c *Conn, p P) (R, error)) HandlerFunc {
	return func(ctx context.Context, c *Conn, raw json.RawMessage) (any, error) {
		if raw == nil {
			return nil, InvalidParams("missing field `params`")
		}
		var p P
		if err := DecodeParams(raw, &p); err != nil {
			return nil, err
		}
		return f(ctx, c, p)
	}
}

// TypedOptional is Typed for methods whose params may be absent or null (the zero P).
func TypedOptional[P, R any](f func(ctx context.Context, c *Conn, p P) (R, error)) HandlerFunc {
	return func(ctx context.Context, c *Conn, raw json.RawMessage) (any, error) {
		var p P
		if raw != nil {
			if err := DecodeParams(raw, &p); err != nil {
				return nil, err
			}
		}
		return f(ctx, c, p)
	}
}

// DecodeParams unmarshals params into v; a mismatch is a -32602 error saying where.
func DecodeParams(raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return InvalidParams("invalid type for `" + te.Field + "`: expected " + te.Type.String() + ", got " + te.Value)
		}
		return InvalidParams(strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}
