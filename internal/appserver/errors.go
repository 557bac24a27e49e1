package appserver

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"github.com/gocodex/gocodex/internal/jsonrpc"
	"github.com/gocodex/gocodex/protocol"
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

// codexMethods are the request methods Codex 0.171's app-server knows, in the order its
// "unknown variant" error lists them (recorded from that error's text).
//
//go:embed codex_methods.txt
var codexMethods string

var unknownMethodSuffix = sync.OnceValue(func() string {
	names := strings.Fields(codexMethods)
	var b strings.Builder
	b.WriteString(", expected one of ")
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("`" + n + "`")
	}
	return b.String()
})

// errUnknownMethod is Codex's answer to a method it does not know: -32600 with serde's
// "unknown variant" text naming every method it does know.
func errUnknownMethod(method string) *jsonrpc.Error {
	return InvalidRequest("Invalid request: unknown variant `" + method + "`" + unknownMethodSuffix())
}

// errMissingParams is Codex's answer to a request without params (or with null params) for
// a method whose params are not optional.
func errMissingParams() *jsonrpc.Error {
	return InvalidRequest("Invalid request: missing field `params`")
}

// TypedHandler is a handler whose params decode into a Go type (Typed, TypedOptional). As
// in Codex, params lacking a field the method requires are refused after the decode
// (Server.Handle sets required from paramsRequired).
type TypedHandler struct {
	serve    func(ctx context.Context, c *Conn, raw json.RawMessage, required []string) (any, error)
	check    func(raw json.RawMessage, required []string) error
	required []string
}

// ServeRequest decodes the params and runs the handler.
func (h TypedHandler) ServeRequest(ctx context.Context, c *Conn, raw json.RawMessage) (any, error) {
	return h.serve(ctx, c, raw, h.required)
}

// CheckParams decodes the params as ServeRequest would, without running the handler.
func (h TypedHandler) CheckParams(raw json.RawMessage) error { return h.check(raw, h.required) }

// missingRequired is Codex's error for params (an object) without one of the required
// fields, the first in declaration order.
func missingRequired(raw json.RawMessage, required []string) error {
	if len(required) == 0 {
		return nil
	}
	present := make(map[string]bool, len(required))
	if protocol.ObjectMembers(raw, func(key string, _ []byte) bool { present[key] = true; return true }) != nil {
		return nil // not an object: the decode said so already, or the type takes other forms
	}
	for _, f := range required {
		if !present[f] {
			return InvalidRequest("Invalid request: missing field `" + f + "`")
		}
	}
	return nil
}

// Typed adapts a handler with typed params and result. Absent or null params are an error,
// as in Codex ("missing field `params`"); JSON that does not fit P is -32600 (see DecodeParams).
func Typed[P, R any](f func(ctx context.Context, c *Conn, p P) (R, error)) TypedHandler {
	decode := func(raw json.RawMessage) (P, error) {
		var p P
		if raw == nil || string(raw) == "null" {
			return p, errMissingParams()
		}
		return p, DecodeParams(raw, &p)
	}
	return typedHandler(decode, f)
}

// TypedOptional is Typed for methods whose params may be absent or null (the zero P).
func TypedOptional[P, R any](f func(ctx context.Context, c *Conn, p P) (R, error)) TypedHandler {
	decode := func(raw json.RawMessage) (P, error) {
		var p P
		if raw == nil {
			return p, nil
		}
		return p, DecodeParams(raw, &p)
	}
	return typedHandler(decode, f)
}

func typedHandler[P, R any](decode func(json.RawMessage) (P, error), f func(ctx context.Context, c *Conn, p P) (R, error)) TypedHandler {
	return TypedHandler{
		serve: func(ctx context.Context, c *Conn, raw json.RawMessage, required []string) (any, error) {
			p, err := decode(raw)
			if err != nil {
				return nil, err
			}
			if err := missingRequired(raw, required); err != nil {
				return nil, err
			}
			return f(ctx, c, p)
		},
		check: func(raw json.RawMessage, required []string) error {
			if _, err := decode(raw); err != nil {
				return err
			}
			return missingRequired(raw, required)
		},
	}
}

// DecodeParams unmarshals params into v; a mismatch is a -32600 error worded as Codex's
// (serde's) "Invalid request: invalid type: integer `5`, expected a string".
func DecodeParams(raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return InvalidRequest("Invalid request: " + serdeTypeError(raw, te))
		}
		return InvalidRequest("Invalid request: " + strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}
