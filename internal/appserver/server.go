package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// HandlerFunc answers one request. params is the raw params member (nil when absent).
type HandlerFunc func(ctx context.Context, c *Conn, params json.RawMessage) (any, error)

// Handler answers one request: a HandlerFunc, or a TypedHandler (Typed, TypedOptional),
// which can also check a request's params without answering it.
type Handler interface {
	ServeRequest(ctx context.Context, c *Conn, params json.RawMessage) (any, error)
}

// ServeRequest calls f.
func (f HandlerFunc) ServeRequest(ctx context.Context, c *Conn, params json.RawMessage) (any, error) {
	return f(ctx, c, params)
}

// NotificationFunc handles a client notification.
type NotificationFunc func(ctx context.Context, c *Conn, params json.RawMessage)

// Options are the process-wide inputs of a Server.
type Options struct {
	// Config is the configuration the command loaded (CODEX_HOME, -c overrides applied).
	Config *config.Config
	// StartupWarnings are the configuration warnings found at start; each client gets them
	// as configWarning notifications right after its initialize answer, as from Codex.
	StartupWarnings []ConfigWarningParams
	// LoadOptions are the options Config was loaded with, so handlers can reload it with a
	// request's overrides on top.
	LoadOptions config.LoadOptions
	// LoadConfig loads a configuration; nil means config.Load.
	LoadConfig func(config.LoadOptions) (*config.Config, []config.Warning, error)
	// NewApp returns the process's host, built on the first call (gocodex's factory); the
	// server asks for it when a client first needs it. Required to run threads.
	NewApp func(app.Options) (*app.App, error)
	// AppOptions are the base options for NewApp (Config is filled in).
	AppOptions app.Options
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	Logger *slog.Logger
	// HTTPClient is passed to the engine's model client.
	HTTPClient *http.Client
	// Platform overrides what initialize reports about the machine (tests); nil detects.
	Platform *Platform
	// OutgoingQueue and MaxInFlight bound each connection (see the package doc).
	OutgoingQueue int
	MaxInFlight   int
	// MaxFrame bounds one incoming message (default jsonrpc.DefaultMaxFrame on stdio,
	// WebsocketMaxMessage on websockets).
	MaxFrame int
	// Now is the clock behind notifications' emittedAtMs; nil means time.Now.
	Now func() time.Time
	// SubscriberQueue bounds each connection's queue of one thread's notifications
	// (DefaultSubscriberQueue when zero); see subscriber.go for what overflows it.
	SubscriberQueue int
	// ThreadUnloadDelay is how long a thread nobody is subscribed to stays loaded; zero
	// means the configuration's thread_unload_delay_secs (DefaultThreadUnloadDelay when
	// unset), negative unloads it at once.
	ThreadUnloadDelay time.Duration
	// StalledClientTimeout is how long a stdio or in-process client may leave a thread's
	// notifications unread once its queue is full before it is disconnected, with the reason
	// logged (DefaultStalledClientTimeout when zero). Websocket clients are dropped at once.
	StalledClientTimeout time.Duration
}

// DefaultStalledClientTimeout is the default Options.StalledClientTimeout: long enough for a
// client busy with a large answer, short enough that a client gone silent does not hold a
// turn (and its memory) forever.
const DefaultStalledClientTimeout = 60 * time.Second

// Server holds the method table and what connections share.
type Server struct {
	opts     Options
	logger   *slog.Logger
	platform Platform

	mu       sync.RWMutex
	methods  map[string]Handler
	notifies map[string]NotificationFunc

	appMu sync.Mutex // guards app; apart from mu so building it never stalls dispatch
	app   *app.App
	// external is the chatgptAuthTokens sign-in, when a client made one. Its own lock: the
	// app consults it while App holds appMu.
	externalMu sync.Mutex
	external   *externalAuth

	nextConn atomic.Int64
	threads  *threads // the loaded threads, unloaded by Close

	skillRoots skillExtraRoots // skills/extraRoots/set, for the server's life

	connMu sync.Mutex
	conns  map[*Conn]struct{} // connections being served

	installation installation // CODEX_HOME/installation_id, for remoteControl/status/changed
}

// New builds a server with the core methods (initialize) registered. Method families add
// theirs with Handle.
func New(opts Options) *Server {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.StalledClientTimeout <= 0 {
		opts.StalledClientTimeout = DefaultStalledClientTimeout
	}
	if opts.LoadConfig == nil {
		opts.LoadConfig = config.Load
	}
	if opts.NewApp == nil {
		opts.NewApp = func(app.Options) (*app.App, error) { return nil, errors.New("app-server: no host (Options.NewApp)") }
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Server{
		opts:     opts,
		logger:   opts.Logger,
		methods:  make(map[string]Handler),
		notifies: make(map[string]NotificationFunc),
		conns:    make(map[*Conn]struct{}),
	}
	if opts.Platform != nil {
		s.platform = *opts.Platform
	} else {
		s.platform = DetectPlatform(opts.Getenv)
	}
	s.registerMethods()
	return s
}

// Options returns the options the server was built with (defaults filled in).
func (s *Server) Options() Options { return s.opts }

// Logger is the server's logger.
func (s *Server) Logger() *slog.Logger { return s.logger }

// Handle registers (or replaces) the handler of a request method.
func (s *Server) Handle(method string, h Handler) {
	if th, ok := h.(TypedHandler); ok && th.required == nil {
		th.required = paramsRequired[method]
		h = th
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.methods[method] = h
}

// HandleNotification registers the handler of a client notification method.
func (s *Server) HandleNotification(method string, h NotificationFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notifies[method] = h
}

func (s *Server) handler(method string) (Handler, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	h, ok := s.methods[method]
	return h, ok
}

func (s *Server) notificationHandler(method string) (NotificationFunc, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	h, ok := s.notifies[method]
	return h, ok
}

// App returns the engine app built from Options.Config, creating it on first use. An error
// (e.g. no API key yet) is not cached, so a later login can succeed.
func (s *Server) App(ctx context.Context) (*app.App, error) {
	s.appMu.Lock()
	defer s.appMu.Unlock()
	if s.app != nil {
		return s.app, nil
	}
	if s.opts.Config == nil {
		return nil, fmt.Errorf("app-server: no configuration")
	}
	ao := s.opts.AppOptions
	ao.Config = s.opts.Config
	// thread/start needs no credentials (Codex 0.171): a turn asks for them.
	ao.DeferCredentials = true
	if ao.ExternalAuth == nil {
		ao.ExternalAuth = func() app.Credentials {
			if e := s.externalAuth(); e != nil {
				return e
			}
			return nil
		}
	}
	if ao.Getenv == nil {
		ao.Getenv = s.opts.Getenv
	}
	if ao.Logger == nil {
		ao.Logger = s.logger
	}
	if ao.HTTPClient == nil {
		ao.HTTPClient = s.opts.HTTPClient
	}
	a, err := s.opts.NewApp(ao)
	if err != nil {
		return nil, err
	}
	if s.threads != nil {
		s.threads.observeSubagents(a)
	}
	s.app = a
	return a, nil
}

// Close unloads every thread and ends the engine's.
func (s *Server) Close(ctx context.Context) error {
	if s.threads != nil {
		s.threads.closeAll(ctx)
	}
	s.appMu.Lock()
	a := s.app
	s.appMu.Unlock()
	if a != nil {
		return a.Close(ctx)
	}
	return nil
}

// ServeConn serves one client over a framer until it hangs up or ctx ends.
func (s *Server) ServeConn(ctx context.Context, f jsonrpc.Framer) error {
	return s.serveConn(ctx, f, false)
}

// serveConn serves one client; dropSlow hangs up on it when it falls too far behind a
// thread (websocket clients, as Codex does) instead of making the thread wait.
func (s *Server) serveConn(ctx context.Context, f jsonrpc.Framer, dropSlow bool) error {
	c := newConn(s, s.nextConn.Add(1))
	c.dropSlow = dropSlow
	s.connMu.Lock()
	s.conns[c] = struct{}{}
	s.connMu.Unlock()
	defer func() {
		s.connMu.Lock()
		delete(s.conns, c)
		s.connMu.Unlock()
	}()
	return c.serve(ctx, f)
}

// initializedConns are the connections being served that completed initialize, for
// notifications every client gets.
func (s *Server) initializedConns() []*Conn {
	s.connMu.Lock()
	all := make([]*Conn, 0, len(s.conns))
	for c := range s.conns {
		all = append(all, c)
	}
	s.connMu.Unlock()
	out := all[:0]
	for _, c := range all {
		if c.Initialized() {
			out = append(out, c)
		}
	}
	return out
}

// externalAuth is the chatgptAuthTokens sign-in in force, or nil.
func (s *Server) externalAuth() *externalAuth {
	s.externalMu.Lock()
	defer s.externalMu.Unlock()
	return s.external
}

// setExternalAuth replaces the chatgptAuthTokens sign-in; threads started from now on use it.
func (s *Server) setExternalAuth(e *externalAuth) {
	s.externalMu.Lock()
	s.external = e
	s.externalMu.Unlock()
	s.appMu.Lock()
	a := s.app
	s.appMu.Unlock()
	if a != nil {
		a.ForgetClients()
	}
}
