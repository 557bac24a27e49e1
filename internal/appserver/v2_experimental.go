package appserver

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"
	"sync"

	"github.com/gocodex/gocodex/internal/jsonrpc"
	"github.com/gocodex/gocodex/protocol"
)

// Experimental methods are answered only to a client that asked for the experimental API at
// initialize, as Codex 0.169 gates them: params are read first (their errors come first),
// then the capability is checked ("<method> requires experimentalApi capability").
//
// A method Codex knows that gocodex does not implement, experimental or not, answers -32601
// "<method> is not supported by gocodex" (Codex's own unfinished methods answer -32601
// "<method> is not supported yet"), never "unknown variant", which would say no such method
// exists.

// codexExperimentalMethods are the methods of Codex 0.169's experimental ClientRequest schema
// that its stable schema does not have.
//
//go:embed codex_experimental_methods.txt
var codexExperimentalMethods string

var experimentalMethodSet = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(codexExperimentalMethods) {
		m[n] = true
	}
	return m
})

var codexMethodSet = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(codexMethods) {
		m[n] = true
	}
	return m
})

// isExperimentalMethod reports whether Codex gates method behind experimentalApi.
func isExperimentalMethod(method string) bool { return experimentalMethodSet()[method] }

// errUnsupportedMethod answers a method Codex knows and gocodex does not implement (checked
// after initialization and the experimental gate, as for an implemented method).
func errUnsupportedMethod(method string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: method + " is not supported by gocodex"}
}

// unhandledMethod is the answer to a method without a handler: Codex's "unknown variant"
// when Codex does not know it either, else what an unimplemented known method gets.
func (c *Conn) unhandledMethod(method string) *jsonrpc.Error {
	if !codexMethodSet()[method] {
		return errUnknownMethod(method)
	}
	if !c.Initialized() {
		return errNotInitialized()
	}
	if isExperimentalMethod(method) && !c.Capabilities().ExperimentalAPI {
		return InvalidRequest(method + " requires experimentalApi capability")
	}
	return errUnsupportedMethod(method)
}

// registerExperimental registers the experimental methods gocodex implements beyond
// collaborationMode/list and the fuzzy file search sessions.
func (r *threads) registerExperimental(s *Server) {
	s.Handle("mock/experimentalMethod", Typed(func(ctx context.Context, c *Conn, p struct {
		Value json.RawMessage `json:"value"`
	}) (any, error) {
		if err := requireExperimental(c, "mock/experimentalMethod"); err != nil {
			return nil, err
		}
		echoed := p.Value
		if len(echoed) == 0 {
			echoed = json.RawMessage("null")
		}
		return struct {
			Echoed json.RawMessage `json:"echoed"`
		}{echoed}, nil
	}))
	s.Handle("remoteControl/status/read", func(ctx context.Context, c *Conn, _ json.RawMessage) (any, error) {
		if err := requireExperimental(c, "remoteControl/status/read"); err != nil {
			return nil, err
		}
		return c.remoteControlStatus(), nil
	})
	s.Handle("thread/backgroundTerminals/clean", Typed(func(ctx context.Context, c *Conn, p threadIDParams) (struct{}, error) {
		if err := requireExperimental(c, "thread/backgroundTerminals/clean"); err != nil {
			return struct{}{}, err
		}
		lt, err := r.loadedOrErr(p.ThreadID)
		if err != nil {
			return struct{}{}, err
		}
		if err := lt.th.SubmitWithID(newSubmissionID(), protocol.CleanBackgroundTerminalsOp{}); err != nil {
			return struct{}{}, internalError(err.Error())
		}
		return struct{}{}, nil
	}))
	registerFuzzySessions(s)
}
