package appserver

import (
	"context"
	_ "embed"
	"encoding/json"
	"strconv"
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

// codexExperimentalMethods are the methods of Codex 0.171's experimental ClientRequest schema
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
	r.registerThreadSearch(s)
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
	s.Handle("remoteControl/status/read", HandlerFunc(func(ctx context.Context, c *Conn, _ json.RawMessage) (any, error) {
		if err := requireExperimental(c, "remoteControl/status/read"); err != nil {
			return nil, err
		}
		return c.remoteControlStatus(), nil
	}))
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
	s.Handle("thread/backgroundTerminals/list", Typed(func(ctx context.Context, c *Conn, p backgroundTerminalsListParams) (backgroundTerminalsList, error) {
		if err := requireExperimental(c, "thread/backgroundTerminals/list"); err != nil {
			return backgroundTerminalsList{}, err
		}
		lt, err := r.loadedOrErr(p.ThreadID)
		if err != nil {
			return backgroundTerminalsList{}, err
		}
		return listBackgroundTerminals(lt, p)
	}))
	s.Handle("thread/backgroundTerminals/terminate", Typed(func(ctx context.Context, c *Conn, p struct {
		ThreadID  string `json:"threadId"`
		ProcessID string `json:"processId"`
	}) (any, error) {
		if err := requireExperimental(c, "thread/backgroundTerminals/terminate"); err != nil {
			return nil, err
		}
		lt, err := r.loadedOrErr(p.ThreadID)
		if err != nil {
			return nil, err
		}
		terms := lt.th.BackgroundTerminals()
		return struct {
			Terminated bool `json:"terminated"`
		}{terms != nil && terms.Terminate(p.ProcessID)}, nil
	}))
	registerFuzzySessions(s)
}

type backgroundTerminalsListParams struct {
	ThreadID string  `json:"threadId"`
	Cursor   *string `json:"cursor"`
	Limit    *uint32 `json:"limit"`
}

// backgroundTerminal is ThreadBackgroundTerminal; gocodex does not sample the process's pid,
// CPU or memory (null, as Codex 0.169 answered here too).
type backgroundTerminal struct {
	ItemID     string   `json:"itemId"`
	ProcessID  string   `json:"processId"`
	Command    string   `json:"command"`
	Cwd        string   `json:"cwd"`
	OsPid      *uint32  `json:"osPid"`
	CPUPercent *float64 `json:"cpuPercent"`
	RssKb      *uint64  `json:"rssKb"`
}

type backgroundTerminalsList struct {
	Data       []backgroundTerminal `json:"data"`
	NextCursor *string              `json:"nextCursor"`
}

// listBackgroundTerminals pages the thread's running sessions (a limit of 0 or none lists all,
// as Codex answers; the cursor is the index to continue from).
func listBackgroundTerminals(lt *loadedThread, p backgroundTerminalsListParams) (backgroundTerminalsList, error) {
	out := backgroundTerminalsList{Data: []backgroundTerminal{}}
	terms := lt.th.BackgroundTerminals()
	if terms == nil {
		return out, nil
	}
	all := terms.Terminals()
	start := 0
	if p.Cursor != nil {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 || n > len(all) {
			return out, InvalidRequest("invalid cursor: " + *p.Cursor)
		}
		start = n
	}
	end := len(all)
	if p.Limit != nil && *p.Limit > 0 && start+int(*p.Limit) < end {
		end = start + int(*p.Limit)
		next := strconv.Itoa(end)
		out.NextCursor = &next
	}
	for _, t := range all[start:end] {
		out.Data = append(out.Data, backgroundTerminal{ItemID: t.CallID, ProcessID: t.ProcessID, Command: t.Command, Cwd: t.Cwd})
	}
	return out, nil
}
