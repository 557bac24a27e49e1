// Package mcpserver is the `gocodex mcp-server` face: a standard MCP server (over stdio, or
// any go-sdk transport) whose tools `codex` and `codex-reply` start and continue engine
// threads. Every event of a running thread streams to the client as a `codex/event`
// notification, and approvals go to the client as `elicitation/create` requests, as Codex's
// mcp-server does. Threads live as long as the connection.
//
// Where Codex's behaviour would leave a call hanging or a thread inconsistent, this server
// does the safe thing instead, keeping Codex's result shape (text plus structuredContent
// {threadId, content}, isError set):
//   - an error event ends the call when its turn reports the end (Codex answers at the
//     error and leaves the turn's end in the queue for the next reply to trip over);
//   - an aborted turn ends the call with an error result (Codex keeps waiting);
//   - a cancelled call interrupts its turn and a reply waits for the wind-down, while a
//     reply to a thread another call is driving is refused;
//   - an elicitation the client cannot answer (an error, no elicitation support) denies.
//
// Approval answers may be Codex's own ({"decision": <ReviewDecision>}) or plain MCP
// elicitation results: accept approves (or carries content.decision), decline denies,
// cancel aborts the turn.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/version"
	"github.com/gocodex/gocodex/protocol"
)

// Options configure a Server.
type Options struct {
	// Calls load each `codex` call's configuration (its parameters over the server's own
	// choices: CODEX_HOME, -c overrides) and start its thread on the process's host (built
	// on the first call, with that call's configuration). Required.
	Calls  *faceopts.Calls
	Logger *slog.Logger
}

// Server answers MCP clients. It holds no connection state itself: each Serve is one
// client with its own threads.
type Server struct {
	opts Options
	log  *slog.Logger
}

// New returns a server; it does nothing until Serve.
func New(opts Options) *Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{opts: opts, log: log}
}

// Implementation is what the server calls itself in the initialize handshake.
func Implementation() *mcp.Implementation {
	return &mcp.Implementation{Name: "codex-mcp-server", Title: "Codex", Version: version.CodexProtocol}
}

// Serve speaks MCP over t until the client goes away or ctx ends, then ends every thread
// the client started and waits for their tool calls to return.
func (s *Server) Serve(ctx context.Context, t mcp.Transport) error {
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	sess := &session{srv: s, ctx: sctx, threads: make(map[string]*threadEntry)}
	ms := mcp.NewServer(Implementation(), &mcp.ServerOptions{
		Logger: s.log,
		// Codex advertises tools only (the SDK would add logging by default).
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	ms.AddTool(codexTool(), sess.handleCodex)
	ms.AddTool(replyTool(), sess.handleReply)
	ms.AddReceivingMiddleware(unknownToolResult)
	err := ms.Run(ctx, &rawTransport{inner: t, connected: sess.setConn})
	sess.close()
	cancel()
	sess.calls.Wait()
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		err = nil
	}
	return err
}

// closeGrace bounds how long ending the session waits for its threads to shut down.
const closeGrace = 10 * time.Second

// session is one client: its connection and the threads it started.
type session struct {
	srv *Server
	// ctx outlives tool calls (threads are started under it) and ends with the session.
	ctx context.Context

	connMu sync.Mutex
	conn   *rawConn

	mu      sync.Mutex
	closed  bool
	threads map[string]*threadEntry
	// calls counts running tool calls, so Serve returns only after the last one.
	calls sync.WaitGroup
}

// threadEntry is a thread and the slot a tool call holds while it drives a turn.
type threadEntry struct {
	th  app.Thread
	sem chan struct{}

	mu sync.Mutex
	// holder is the context of the call driving the thread. Once it is cancelled (or
	// draining is set) the call is only winding down its interrupted turn: a reply then
	// waits for the thread instead of being refused. The SDK handles the cancellation
	// notification before it reads the next request, so a reply sent after a cancel
	// always finds the holder's context done.
	holder   context.Context
	draining bool
}

func newThreadEntry(th app.Thread) *threadEntry {
	return &threadEntry{th: th, sem: make(chan struct{}, 1)}
}

// acquire takes the thread for a call. A thread running another call's turn is refused
// (false); one that is only winding down a cancelled turn is waited for.
func (e *threadEntry) acquire(ctx context.Context) (bool, error) {
	select {
	case e.sem <- struct{}{}:
		e.hold(ctx)
		return true, nil
	default:
	}
	e.mu.Lock()
	winding := e.draining || (e.holder != nil && e.holder.Err() != nil)
	e.mu.Unlock()
	if !winding {
		return false, nil
	}
	select {
	case e.sem <- struct{}{}:
		e.hold(ctx)
		return true, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// hold records the call that took the thread.
func (e *threadEntry) hold(ctx context.Context) {
	e.mu.Lock()
	e.holder = ctx
	e.mu.Unlock()
}

func (e *threadEntry) setDraining(v bool) {
	e.mu.Lock()
	e.draining = v
	e.mu.Unlock()
}

func (e *threadEntry) release() {
	e.mu.Lock()
	e.draining = false
	e.holder = nil
	e.mu.Unlock()
	<-e.sem
}

func (s *session) setConn(c *rawConn) {
	s.connMu.Lock()
	s.conn = c
	s.connMu.Unlock()
}

func (s *session) connection() *rawConn {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	return s.conn
}

// begin registers a tool call; false once the session is closing.
func (s *session) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.calls.Add(1)
	return true
}

// close ends the session's threads (the host is the process's, not the session's); tool
// calls waiting on a thread see it close and return.
func (s *session) close() {
	s.mu.Lock()
	s.closed = true
	threads := s.threads
	s.threads = map[string]*threadEntry{}
	s.mu.Unlock()
	for _, e := range threads {
		if _, err := e.th.Submit(protocol.ShutdownOp{}); err != nil && !errors.Is(err, app.ErrThreadClosed) {
			s.srv.log.Warn("close thread", "thread", e.th.ID(), "err", err)
		}
	}
	// Bounded, so that a thread that will not stop cannot keep the process alive.
	timeout := time.NewTimer(closeGrace)
	defer timeout.Stop()
	for _, e := range threads {
		select {
		case <-e.th.Done():
		case <-timeout.C:
			s.srv.log.Warn("close threads", "err", "a thread did not stop within the grace period")
			return
		}
	}
}

func (s *session) handleCodex(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if !s.begin() {
		return nil, errors.New("mcp-server is shutting down")
	}
	defer s.calls.Done()
	args := req.Params.Arguments
	if isAbsent(args) {
		return toolError("Missing arguments for codex tool-call; the `prompt` field is required."), nil
	}
	p, err := parseCodexParams(args)
	if err != nil {
		return toolError("Failed to parse configuration for Codex tool: " + err.Error()), nil
	}
	calls := s.srv.opts.Calls
	if calls == nil {
		return toolError("Failed to start Codex session: mcp-server: no host"), nil
	}
	cfg, warnings, err := calls.Load(p.overrides())
	if err != nil {
		return toolError("Failed to load Codex configuration from overrides: " + err.Error()), nil
	}
	for _, w := range warnings {
		s.srv.log.Warn("config", "warning", w.String())
	}
	e, err := s.startThread(func() (app.Thread, error) { return calls.Start(s.ctx, cfg, "mcp") })
	if err != nil {
		return toolError("Failed to start Codex session: " + err.Error()), nil
	}
	e.sem <- struct{}{} // a new thread: free
	e.hold(ctx)
	defer e.release()
	return s.runTurn(ctx, req, e, *p.Prompt, true)
}

func (s *session) handleReply(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if !s.begin() {
		return nil, errors.New("mcp-server is shutting down")
	}
	defer s.calls.Done()
	args := req.Params.Arguments
	if isAbsent(args) {
		return toolError("Missing arguments for codex-reply tool-call; the `thread_id` and `prompt` fields are required."), nil
	}
	prompt, id, err := parseReplyParams(args)
	if err != nil {
		return toolError("Failed to parse configuration for Codex tool: " + err.Error()), nil
	}
	if id == "" {
		return toolError("Failed to parse thread_id: either threadId or conversationId must be provided"), nil
	}
	if _, err := uuid.Parse(id); err != nil {
		return toolError("Failed to parse thread_id: " + err.Error()), nil
	}
	s.mu.Lock()
	e, ok := s.threads[id]
	s.mu.Unlock()
	if !ok {
		return threadResult(id, "Session not found for thread_id: "+id, true), nil
	}
	ok, err = e.acquire(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		return threadResult(id, "A Codex request is still running for this thread; wait for its response before replying.", true), nil
	}
	defer e.release()
	return s.runTurn(ctx, req, e, prompt, false)
}

// startThread starts a thread with the call's configuration on the process's host (start);
// the thread belongs to the session, not to the call.
func (s *session) startThread(start func() (app.Thread, error)) (*threadEntry, error) {
	th, err := start()
	if err != nil {
		return nil, err
	}
	e := newThreadEntry(th)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_, _ = th.Submit(protocol.ShutdownOp{})
		return nil, errors.New("mcp-server is shutting down")
	}
	s.threads[th.ID()] = e
	s.mu.Unlock()
	return e, nil
}

// unknownToolResult answers a call to a tool we do not have with an error result, as
// Codex does, where the SDK would answer with a protocol error.
func unknownToolResult(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if ctr, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" && ctr.Params != nil {
			if name := ctr.Params.Name; name != ToolCodex && name != ToolCodexReply {
				return toolError(fmt.Sprintf("Unknown tool '%s'", name)), nil
			}
		}
		return next(ctx, method, req)
	}
}

func isAbsent(args json.RawMessage) bool {
	return len(args) == 0 || string(args) == "null"
}

// toolError is a failed call the client sees as a tool result, as Codex reports bad
// arguments.
func toolError(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true}
}

// structuredResult is the structuredContent of a result, threadId first as Codex writes it.
type structuredResult struct {
	ThreadID string `json:"threadId"`
	Content  string `json:"content"`
}

// threadResult is a call's answer: the text, and the thread id to continue with.
func threadResult(threadID, text string, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: structuredResult{ThreadID: threadID, Content: text},
		IsError:           isError,
	}
}
