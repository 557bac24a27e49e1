// Package acp is the `gocodex acp` face: the Agent Client Protocol (JSON-RPC 2.0 over stdio,
// as Zed, JetBrains IDEs and other editors drive coding agents). A session is a thread of the
// host; its events are drawn from the one fold of events into items (internal/items).
package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/gocodex/gocodex/internal/jsonrpc"
	"github.com/gocodex/gocodex/protocol"
)

// engineThread is what a session needs of the host's thread (agent.Thread).
type engineThread interface {
	ID() string
	Submit(op protocol.Op) (string, error)
	NextEvent(ctx context.Context) (protocol.Event, error)
	Done() <-chan struct{}
}

// threadSpec is what a session asks the host for: a new thread in cwd with the client's MCP
// servers, or the saved thread ResumeID continued.
type threadSpec struct {
	Cwd        string
	McpServers []mcpServer
	ResumeID   string
}

// startedThread is a thread the host started, with the history to replay when resumed.
type startedThread struct {
	Thread  engineThread
	History []replayStep
}

// Options are what the server runs on.
type Options struct {
	// Start starts (or resumes) a thread on the host.
	Start func(ctx context.Context, spec threadSpec) (startedThread, error)
	// List lists the saved threads (of cwd when set), a page after cursor.
	List func(cwd, cursor string) (listSessionsResult, error)
	// Models are the models a session offers (the catalog's listed ones).
	Models []modelInfo
	// SignIn runs the ChatGPT sign-in (a browser and a local callback) and returns once it
	// has stored the tokens; nil offers none.
	SignIn func(ctx context.Context) error
	// Getenv reads the environment (the API-key sign-ins).
	Getenv  func(string) string
	Logger  *slog.Logger
	Version string
}

// Server is one ACP connection: its sessions and what the client said it can do.
type Server struct {
	opts Options
	conn *jsonrpc.Conn
	// ctx lives as long as the connection: sessions, their threads and their requests to
	// the client run on it (a request's own ctx ends with its answer).
	ctx context.Context

	mu          sync.Mutex
	initialized bool
	client      clientCapabilities
	sessions    map[string]*session
	wg          sync.WaitGroup // session pumps
}

// Serve speaks ACP over f until the client goes or ctx ends; it then ends the sessions.
func Serve(ctx context.Context, f jsonrpc.Framer, o Options) error {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &Server{opts: o, sessions: map[string]*session{}, ctx: ctx}
	s.conn = jsonrpc.NewConn(envelopeFramer{Framer: f, hangUp: s.hangUp}, jsonrpc.ConnOptions{
		Handle:   s.handle,
		Notified: s.notified,
		Problem:  func(err error) { o.Logger.Warn("acp: bad input", "err", err) },
	})
	err := s.conn.Run(ctx)
	cancel()
	s.mu.Lock()
	for _, ss := range s.sessions {
		ss.shutdown()
	}
	s.mu.Unlock()
	s.wg.Wait()
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// hangUp interrupts the turns still running when the client goes: nobody waits for them, and
// the connection ends once their prompts are answered.
func (s *Server) hangUp() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ss := range s.sessions {
		ss.cancel()
	}
}

func (s *Server) handle(ctx context.Context, c *jsonrpc.Conn, req *jsonrpc.Request) {
	reply := func(result any, err error) { _ = c.Reply(ctx, req.ID, result, err) }
	if req.Method != "initialize" && req.Method != "authenticate" {
		s.mu.Lock()
		ok := s.initialized
		s.mu.Unlock()
		if !ok {
			reply(nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "%s before initialize", req.Method))
			return
		}
	}
	switch req.Method {
	case "initialize":
		reply(s.initialize(req.Params))
	case "authenticate":
		// The ChatGPT sign-in waits for the person in the browser: off the read loop.
		c.Go(func() { reply(s.authenticate(ctx, req.Params)) })
	case "session/new", "session/load":
		// The commands are announced once the client knows the session (after the answer).
		c.Go(func() {
			open := s.newSession
			if req.Method == "session/load" {
				open = s.loadSession
			}
			ss, result, err := open(req.Params)
			reply(result, err)
			if err == nil {
				ss.announceCommands(s.ctx)
				s.run(ss)
			}
		})
	case "session/prompt":
		var p promptParams
		if ss, err := s.sessionParams(req.Params, &p, "prompt"); err != nil {
			reply(nil, err)
		} else {
			c.Go(func() { reply(ss.prompt(ctx, p.Prompt)) })
		}
	case "session/set_mode":
		var p setModeParams
		ss, err := s.sessionParams(req.Params, &p, "modeId")
		if err == nil {
			err = ss.setMode(ctx, p.ModeID)
		}
		reply(struct{}{}, err)
	case "session/set_model":
		var p setModelParams
		ss, err := s.sessionParams(req.Params, &p, "modelId")
		if err == nil {
			err = ss.setModel(p.ModelID)
		}
		reply(struct{}{}, err)
	case "session/set_config_option":
		reply(s.setConfigOption(ctx, req.Params))
	case "session/list":
		if s.opts.List == nil {
			reply(nil, methodNotFound(req.Method))
			return
		}
		var p listSessionsParams
		if len(req.Params) > 0 && json.Unmarshal(req.Params, &p) != nil {
			reply(nil, jsonrpc.InvalidParams("params must be {cwd?, cursor?}"))
			return
		}
		c.Go(func() {
			r, err := s.opts.List(p.Cwd, p.Cursor)
			reply(r, err)
		})
	case "session/close":
		var p sessionIDParams
		if _, err := s.sessionParams(req.Params, &p); err != nil {
			reply(nil, err)
			return
		}
		s.mu.Lock()
		ss := s.sessions[p.SessionID]
		delete(s.sessions, p.SessionID)
		s.mu.Unlock()
		ss.cancel()
		ss.shutdown()
		reply(struct{}{}, nil)
	default:
		reply(nil, methodNotFound(req.Method))
	}
}

func (s *Server) notified(ctx context.Context, c *jsonrpc.Conn, n *jsonrpc.Notification) {
	if n.Method != "session/cancel" {
		return // notifications get no answer; unknown ones are ignored, as JSON-RPC asks
	}
	var p sessionIDParams
	if decode(n.Params, &p, "sessionId") != nil {
		return
	}
	if ss, err := s.session(p.SessionID); err == nil {
		ss.cancel()
	}
}

func methodNotFound(method string) *jsonrpc.Error {
	e := jsonrpc.MethodNotFound(method)
	e.Data, _ = json.Marshal(method) // as the adapter: the method's name
	return e
}

// decode reads params into v and checks the members the schema requires.
func decode(params json.RawMessage, v any, required ...string) error {
	if len(params) == 0 || string(params) == "null" {
		return jsonrpc.InvalidParams("missing params")
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(params, &members); err != nil {
		return jsonrpc.InvalidParams("params must be an object")
	}
	for _, r := range required {
		if m, ok := members[r]; !ok || string(m) == "null" {
			return jsonrpc.InvalidParams("missing " + r)
		}
	}
	if err := json.Unmarshal(params, v); err != nil {
		return jsonrpc.InvalidParams(err.Error())
	}
	return nil
}

// sessionParams decodes the params of a request about a session (sessionId and required)
// and finds the session.
func (s *Server) sessionParams(params json.RawMessage, v any, required ...string) (*session, error) {
	if err := decode(params, v, append([]string{"sessionId"}, required...)...); err != nil {
		return nil, err
	}
	var id sessionIDParams
	_ = json.Unmarshal(params, &id)
	return s.session(id.SessionID)
}

func (s *Server) session(id string) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.sessions[id]
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Session not found: " + id}
	}
	return ss, nil
}

func (s *Server) initialize(params json.RawMessage) (any, error) {
	var p initializeParams
	if err := decode(params, &p, "protocolVersion"); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.initialized, s.client = true, p.ClientCapabilities
	s.mu.Unlock()
	// Version negotiation: we answer with the version we speak (the latest); a client that
	// cannot speak it closes the connection.
	return initializeResult{
		ProtocolVersion: ProtocolVersion,
		AgentCapabilities: agentCapabilities{
			LoadSession:         true,
			PromptCapabilities:  promptCapabilities{Image: true, EmbeddedContext: true},
			McpCapabilities:     mcpCapabilities{HTTP: true},
			SessionCapabilities: sessionCapabilities{List: &struct{}{}, Close: &struct{}{}},
		},
		AuthMethods: authMethods,
		AgentInfo:   implementation{Name: "gocodex", Title: "gocodex", Version: s.opts.Version},
	}, nil
}

// authMethods are the adapter's: ChatGPT sign-in and the two API-key variables.
var authMethods = []authMethod{
	{ID: "chatgpt", Name: "Login with ChatGPT", Description: "Use your ChatGPT login with Codex CLI (requires a paid ChatGPT subscription)"},
	{ID: "codex-api-key", Name: "Use CODEX_API_KEY", Description: "Requires setting the `CODEX_API_KEY` environment variable.",
		Type: "env_var", Vars: []authVar{{Name: "CODEX_API_KEY"}}},
	{ID: "openai-api-key", Name: "Use OPENAI_API_KEY", Description: "Requires setting the `OPENAI_API_KEY` environment variable.",
		Type: "env_var", Vars: []authVar{{Name: "OPENAI_API_KEY"}}},
}

// authRequired is ACP's error for a sign-in the agent cannot complete.
const authRequired int64 = -32000

func (s *Server) authenticate(ctx context.Context, params json.RawMessage) (any, error) {
	var p authenticateParams
	if err := decode(params, &p, "methodId"); err != nil {
		return nil, err
	}
	getenv := s.opts.Getenv
	switch p.MethodID {
	case "codex-api-key", "openai-api-key":
		name := strings.ToUpper(strings.ReplaceAll(p.MethodID, "-", "_"))
		if getenv(name) == "" {
			return nil, &jsonrpc.Error{Code: authRequired, Message: "Authentication required: " + name + " is not set in the agent's environment"}
		}
		return struct{}{}, nil
	case "chatgpt":
		if s.opts.SignIn == nil {
			return nil, &jsonrpc.Error{Code: authRequired, Message: "Authentication required: run `gocodex login` in a terminal to sign in with ChatGPT, then retry"}
		}
		if err := s.opts.SignIn(ctx); err != nil {
			return nil, &jsonrpc.Error{Code: authRequired, Message: "ChatGPT sign-in failed: " + err.Error()}
		}
		return struct{}{}, nil
	}
	return nil, jsonrpc.InvalidParams(fmt.Sprintf("unknown methodId %q (one of chatgpt, codex-api-key, openai-api-key)", p.MethodID))
}

func (s *Server) newSession(params json.RawMessage) (*session, any, error) {
	var p newSessionParams
	if err := decode(params, &p, "cwd", "mcpServers"); err != nil {
		return nil, nil, err
	}
	if err := checkSessionParams(p.Cwd, p.McpServers); err != nil {
		return nil, nil, err
	}
	ss, err := s.open(threadSpec{Cwd: p.Cwd, McpServers: p.McpServers}, false)
	if err != nil {
		return nil, nil, err
	}
	setup := ss.setup()
	setup.SessionID = ss.id
	return ss, setup, nil
}

// loadSession resumes a saved thread; its history is replayed before the answer.
func (s *Server) loadSession(params json.RawMessage) (*session, any, error) {
	var p loadSessionParams
	if err := decode(params, &p, "sessionId", "cwd", "mcpServers"); err != nil {
		return nil, nil, err
	}
	if err := checkSessionParams(p.Cwd, p.McpServers); err != nil {
		return nil, nil, err
	}
	if _, err := s.session(p.SessionID); err == nil {
		return nil, nil, jsonrpc.InvalidParams("session " + p.SessionID + " is already open on this connection")
	}
	ss, err := s.open(threadSpec{Cwd: p.Cwd, McpServers: p.McpServers, ResumeID: p.SessionID}, true)
	if err != nil {
		return nil, nil, err
	}
	return ss, ss.setup(), nil
}

func checkSessionParams(cwd string, servers []mcpServer) error {
	if !isAbs(cwd) {
		return jsonrpc.InvalidParams(fmt.Sprintf("cwd must be an absolute path, got %q", cwd))
	}
	for _, m := range servers {
		switch {
		case !validServerName(m.Name):
			return jsonrpc.InvalidParams(fmt.Sprintf("MCP server name %q: it must be non-empty, without dots, quotes, brackets or spaces", m.Name))
		case m.Type == "" && m.Command == "":
			return jsonrpc.InvalidParams("MCP server " + m.Name + ": no command")
		case m.Type == "sse":
			return jsonrpc.InvalidParams("MCP server " + m.Name + ": the sse transport is not supported (mcpCapabilities.sse is false); use http")
		case m.Type == "http" && m.URL == "":
			return jsonrpc.InvalidParams("MCP server " + m.Name + ": no url")
		case m.Type != "" && m.Type != "http" && m.Type != "stdio":
			return jsonrpc.InvalidParams("MCP server " + m.Name + ": unknown type " + m.Type)
		}
	}
	return nil
}

// open starts the session's thread, replays a resumed thread's history and starts the pump.
func (s *Server) open(spec threadSpec, replay bool) (*session, error) {
	ctx := s.ctx
	st, err := s.opts.Start(ctx, spec)
	if err != nil {
		if spec.ResumeID != "" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "cannot load session " + spec.ResumeID + ": " + err.Error()}
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "cannot start a session: " + err.Error()}
	}
	ss, err := newSession(ctx, s, st.Thread)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	if replay {
		ss.replay(ctx, st.History)
	}
	s.mu.Lock()
	s.sessions[ss.id] = ss
	s.mu.Unlock()
	return ss, nil
}

// run starts drawing the session's events; the handler calls it once the client has the
// session's answer and its commands, so every update follows them.
func (s *Server) run(ss *session) {
	s.wg.Add(1)
	go func() { // ends with the thread (shutdown) or the connection
		defer s.wg.Done()
		ss.pump(s.ctx)
	}()
}

func (s *Server) setConfigOption(ctx context.Context, params json.RawMessage) (any, error) {
	var p setConfigOptionParams
	ss, err := s.sessionParams(params, &p, "configId", "value")
	if err != nil {
		return nil, err
	}
	var value string
	if json.Unmarshal(p.Value, &value) != nil {
		return nil, jsonrpc.InvalidParams("value must be a string")
	}
	switch p.ConfigID {
	case "mode":
		err = ss.setMode(ctx, value)
	case "model":
		err = ss.setModel(value)
	case "reasoning_effort":
		err = ss.setEffort(value)
	default:
		return nil, jsonrpc.InvalidParams("unknown configId " + p.ConfigID + " (mode, model or reasoning_effort)")
	}
	if err != nil {
		return nil, err
	}
	return setConfigOptionResult{ConfigOptions: ss.setup().ConfigOptions}, nil
}

// notify sends one session/update.
func (s *Server) notify(ctx context.Context, sessionID string, update any) {
	if err := s.conn.Notify(ctx, "session/update", sessionNotification{SessionID: sessionID, Update: update}); err != nil {
		s.opts.Logger.Debug("acp: notify", "err", err)
	}
}

func (s *Server) clientCaps() clientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.client
}
