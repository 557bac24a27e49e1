// Package mcp is the MCP client manager: it starts the `[mcp_servers]` of the configuration
// (stdio and streamable HTTP, through the official go-sdk), lists their tools and runs their
// calls. Servers start concurrently in the background: a caller that needs a server waits
// for it at most until its startup timeout, and a server that comes up after that joins
// later (its tools are offered from the next turn on). The manager owns every goroutine and
// child process it starts; Close ends them all.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/mcp/oauth"
	"github.com/gocodex/gocodex/internal/version"
	"github.com/gocodex/gocodex/protocol"
)

// The defaults of startup_timeout_sec and tool_timeout_sec.
const (
	DefaultStartupTimeout = 30 * time.Second
	DefaultToolTimeout    = 120 * time.Second
)

// DefaultOptionalGrace is Codex 0.169's default mcp_optional_startup_grace_ms (measured:
// a hanging optional server delays its first turn by about one second).
const DefaultOptionalGrace = time.Second

// protocolVersion is the MCP revision we initialize with: the one Codex 0.169's client
// speaks, which every published server understands (newer SDK revisions probe with a
// `server/discover` request first that older servers may not answer).
const protocolVersion = "2025-06-18"

// terminateWait is how long a stdio server gets to exit after its stdin closes before it
// is signalled.
const terminateWait = time.Second

// State is where a server's startup is.
type State string

// The startup states, as mcp_startup_update reports them.
const (
	StateStarting  State = "starting"
	StateReady     State = "ready"
	StateFailed    State = "failed"
	StateCancelled State = "cancelled"
)

// Options configure a Manager.
type Options struct {
	// Servers is config.Config.McpServers; disabled servers are skipped.
	Servers map[string]config.McpServerConfig
	// Getenv reads the environment (env_vars, bearer tokens, env_http_headers); nil means
	// os.Getenv.
	Getenv func(string) string
	// HTTPClient is the base client of streamable-HTTP servers; nil means
	// http.DefaultClient.
	HTTPClient *http.Client
	// OAuthStore, when set, holds the OAuth credentials of streamable-HTTP servers (`gocodex
	// mcp login`): a server with an entry gets its token on every request, refreshed.
	OAuthStore oauth.Store
	// OptionalGrace is how long after Start a turn waits for a server that is not
	// `required` and still starting (config mcp_optional_startup_grace_ms, as in Codex
	// 0.169); after that the turn goes on without it and the server joins a later turn once
	// it is up. 0 means DefaultOptionalGrace; a negative value waits for the startup
	// timeout. Required servers are always waited for.
	OptionalGrace time.Duration
	// OnEvent receives mcp_startup_update and mcp_startup_complete events, one at a time and
	// in order. It must not block for long.
	OnEvent func(protocol.EventMsg)
	Logger  *slog.Logger
}

// Manager runs the MCP servers of one thread.
type Manager struct {
	opts    Options
	servers map[string]*server
	names   []string // enabled servers, sorted

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// graceEnd closes OptionalGrace after Start.
	graceEnd   chan struct{}
	graceTimer *time.Timer

	emitMu   sync.Mutex
	pending  int  // servers not yet settled; startup is complete at zero
	complete bool // mcp_startup_complete went out
	closed   bool
}

// New prepares the enabled servers; Start starts them.
func New(opts Options) *Manager {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if opts.OptionalGrace == 0 {
		opts.OptionalGrace = DefaultOptionalGrace
	}
	m := &Manager{opts: opts, servers: map[string]*server{}, ctx: ctx, cancel: cancel, graceEnd: make(chan struct{})}
	for name, c := range opts.Servers {
		if !c.IsEnabled() {
			continue
		}
		m.servers[name] = newServer(name, c)
		m.names = append(m.names, name)
	}
	sort.Strings(m.names)
	m.pending = len(m.names)
	return m
}

// Names returns the enabled servers, sorted.
func (m *Manager) Names() []string { return m.names }

// Start connects to every enabled server in the background and returns at once. Call it
// once.
func (m *Manager) Start() {
	if m.opts.OptionalGrace > 0 {
		m.graceTimer = time.AfterFunc(m.opts.OptionalGrace, func() { close(m.graceEnd) })
	}
	for _, name := range m.names {
		m.emit(protocol.McpStartupUpdateEvent{Server: name, Status: statusJSON(StateStarting, "")})
	}
	for _, name := range m.names {
		s := m.servers[name]
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			m.run(s)
		}()
	}
	if len(m.names) == 0 {
		m.emitMu.Lock()
		m.complete = true
		m.emitMu.Unlock()
	}
}

// run connects one server; the startup timer settles it as failed if it takes too long, but
// the attempt goes on so the server can still join later.
func (m *Manager) run(s *server) {
	connected := make(chan struct{})
	m.wg.Add(1)
	go func() { // the startup timer, owned like the attempt
		defer m.wg.Done()
		t := time.NewTimer(s.startupTimeout)
		defer t.Stop()
		select {
		case <-t.C:
			if s.settle(StateFailed, timeoutError(s.name, s.startupTimeout)) {
				m.settled(s)
			}
		case <-connected:
		case <-m.ctx.Done():
		}
	}()
	sess, tools, cmd, err := m.connect(s)
	close(connected)
	if err != nil {
		if m.ctx.Err() != nil {
			if s.settle(StateCancelled, nil) {
				m.settled(s)
			}
			return
		}
		if s.settle(StateFailed, startError(err)) {
			m.settled(s)
		}
		return
	}
	if !s.ready(sess, tools, cmd) {
		// Closed while connecting: the server is ours to shut.
		closeSession(sess, cmd)
		return
	}
	if s.settleReady() {
		m.settled(s)
	} else {
		// Past its timeout: it joins now.
		m.emit(protocol.McpStartupUpdateEvent{Server: s.name, Status: statusJSON(StateReady, "")})
	}
	m.watch(s, sess)
}

// watch notices a server that goes away on its own (a stdio server that exits): it is
// marked failed, so later turns stop offering its tools, and the change is reported.
func (m *Manager) watch(s *server, sess *sdk.ClientSession) {
	err := sess.Wait()
	if m.ctx.Err() != nil {
		return // we are closing it
	}
	msg := fmt.Sprintf("MCP server `%s` closed the connection", s.name)
	if err != nil {
		msg += ": " + err.Error()
	}
	if s.lost(sess, errors.New(msg)) {
		_ = sess.Close()
		m.emit(protocol.McpStartupUpdateEvent{Server: s.name, Status: statusJSON(StateFailed, msg)})
	}
}

// connect starts the transport, initializes and lists the tools.
func (m *Manager) connect(s *server) (*sdk.ClientSession, []*sdk.Tool, *exec.Cmd, error) {
	// Like Codex we offer elicitation (servers expose their elicitation tools to such
	// clients) and no roots. Nothing here can put a question to the person yet, so every
	// elicitation is declined.
	client := sdk.NewClient(&sdk.Implementation{Name: "codex-mcp-client", Title: "Codex", Version: version.CodexProtocol},
		&sdk.ClientOptions{
			Logger: m.opts.Logger,
			Capabilities: &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{
				Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}}},
			ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				return &sdk.ElicitResult{Action: "decline"}, nil
			},
			ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { m.refreshTools(s) },
		})
	var (
		t   sdk.Transport
		cmd *exec.Cmd
	)
	if s.cfg.URL != "" {
		ht, err := httpTransport(s.cfg, m.opts.Getenv, m.opts.HTTPClient)
		if err != nil {
			return nil, nil, nil, err
		}
		if m.opts.OAuthStore != nil && s.cfg.BearerTokenEnvVar == "" {
			h, err := oauth.NewHandler(m.opts.OAuthStore, s.name, oauth.Key(s.name, s.cfg.URL, s.cfg.HTTPHeaders), m.opts.HTTPClient)
			if err != nil {
				return nil, nil, nil, err
			}
			if h != nil {
				ht.OAuthHandler = h
			}
		}
		t = ht
	} else {
		cmd = stdioCommand(s.killCtx, s.cfg, m.opts.Getenv)
		cmd.Stderr = &stderrLog{log: m.opts.Logger, server: s.name}
		t = &sdk.CommandTransport{Command: cmd, TerminateDuration: terminateWait}
	}
	sess, err := client.Connect(m.ctx, t, &sdk.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		if cmd != nil {
			killGroup(cmd)
		}
		return nil, nil, nil, err
	}
	var tools []*sdk.Tool
	if caps := sess.InitializeResult().Capabilities; caps == nil || caps.Tools != nil {
		for tool, err := range sess.Tools(m.ctx, nil) {
			if err != nil {
				closeSession(sess, cmd)
				return nil, nil, nil, fmt.Errorf("tools/list: %w", err)
			}
			tools = append(tools, tool)
		}
	}
	return sess, s.filter(tools), cmd, nil
}

func closeSession(sess *sdk.ClientSession, cmd *exec.Cmd) {
	_ = sess.Close()
	if cmd != nil {
		killGroup(cmd)
	}
}

// refreshTools lists a server's tools again after it said they changed; the next turn
// offers the new list. It runs apart from the SDK's reading goroutine, which must not wait
// on its own answers.
func (m *Manager) refreshTools(s *server) {
	m.emitMu.Lock()
	defer m.emitMu.Unlock()
	if m.closed {
		return
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		sess, err := s.readySession()
		if err != nil {
			return
		}
		var tools []*sdk.Tool
		for tool, err := range sess.Tools(m.ctx, nil) {
			if err != nil {
				m.opts.Logger.Warn("mcp tools/list after list_changed", "server", s.name, "err", err)
				return
			}
			tools = append(tools, tool)
		}
		s.setTools(s.filter(tools))
	}()
}

// settled reports a server's first outcome and, once every server has one, completes the
// startup.
func (m *Manager) settled(s *server) {
	st, err := s.status()
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	m.emit(protocol.McpStartupUpdateEvent{Server: s.name, Status: statusJSON(st, msg)})
	m.emitMu.Lock()
	m.pending--
	done := m.pending == 0 && !m.complete
	if done {
		m.complete = true
	}
	m.emitMu.Unlock()
	if done {
		m.emit(m.completeEvent())
	}
}

func (m *Manager) completeEvent() protocol.McpStartupCompleteEvent {
	ev := protocol.McpStartupCompleteEvent{Ready: []string{}, Failed: []protocol.McpStartupFailure{}, Cancelled: []string{}}
	for _, name := range m.names {
		st, err := m.servers[name].status()
		switch st {
		case StateReady:
			ev.Ready = append(ev.Ready, name)
		case StateFailed:
			ev.Failed = append(ev.Failed, protocol.McpStartupFailure{Server: name, Error: err.Error()})
		case StateCancelled:
			ev.Cancelled = append(ev.Cancelled, name)
		}
	}
	return ev
}

func (m *Manager) emit(ev protocol.EventMsg) {
	if m.opts.OnEvent == nil {
		return
	}
	m.emitMu.Lock()
	defer m.emitMu.Unlock()
	if m.closed {
		return
	}
	m.opts.OnEvent(ev)
}

// Close stops every server: sessions are closed (a stdio server's stdin is closed, then it
// is signalled), child process groups are killed, and every goroutine has ended when Close
// returns.
func (m *Manager) Close() error {
	m.emitMu.Lock()
	m.closed = true
	m.emitMu.Unlock()
	if m.graceTimer != nil {
		m.graceTimer.Stop()
	}
	m.cancel()
	var wg sync.WaitGroup
	for _, name := range m.names {
		s := m.servers[name]
		sess, cmd := s.shut()
		if sess == nil {
			s.kill() // still starting: no handshake to wait for
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			closeSession(sess, cmd)
		}()
	}
	wg.Wait()
	m.wg.Wait()
	for _, name := range m.names {
		m.servers[name].kill()
	}
	return nil
}

// WaitRequired waits for the servers marked `required` to settle and returns Codex's error
// naming those that failed.
func (m *Manager) WaitRequired(ctx context.Context) error {
	var failed []string
	for _, name := range m.names {
		s := m.servers[name]
		if !s.cfg.Required {
			continue
		}
		if err := s.wait(ctx); err != nil {
			failed = append(failed, name+": "+err.Error())
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("required MCP servers failed to initialize: %s", strings.Join(failed, "; "))
	}
	return ctx.Err()
}

// timeoutError is Codex's startup-timeout message.
func timeoutError(name string, d time.Duration) error {
	return fmt.Errorf("MCP client for `%s` timed out after %s seconds. Add or adjust `startup_timeout_sec` in your config.toml:\n[mcp_servers.%s]\nstartup_timeout_sec = XX",
		name, formatSeconds(d), name)
}

// startError words a failed start the way Codex (Rust's io::Error) does for the common case
// of a missing command.
func startError(err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, exec.ErrNotFound) {
		return errors.New("No such file or directory (os error 2)")
	}
	return err
}

func formatSeconds(d time.Duration) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", d.Seconds()), "0"), ".")
}
