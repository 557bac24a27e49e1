package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// conn is one running server for one root: the JSON-RPC connection, the documents it has
// open and the diagnostics it published.
type conn struct {
	server Server
	root   string
	// policy is the sandbox policy it runs under (its JSON): a turn under another policy
	// restarts it.
	policy string
	proc   *process
	rpc    jsonrpc2.Conn
	peer   protocol.Server

	mu      sync.Mutex
	open    map[string]int32  // path -> version sent
	texts   map[string]string // path -> the text sent
	diags   map[string]published
	changed chan struct{} // closed and replaced at each publication
	closing bool
	used    bool // a request has waited on it (the first waits for the workspace to load)
}

// published is the last publication for a file.
type published struct {
	version  int32 // 0 when the server gave none
	received time.Time
	items    []Diagnostic
}

// dial initializes a started server.
func dial(ctx context.Context, s Server, root, policy string, proc *process) (*conn, error) {
	c := &conn{server: s, root: root, policy: policy, proc: proc,
		open: map[string]int32{}, texts: map[string]string{}, diags: map[string]published{}, changed: make(chan struct{})}
	_, c.rpc, c.peer = protocol.NewClient(context.Background(), &client{c: c}, jsonrpc2.NewHeaderStream(proc))
	rootURI := uri.File(root)
	pid := int32(os.Getpid())
	yes := true
	params := &protocol.InitializeParams{
		ProcessID:  &pid,
		ClientInfo: protocol.ClientInfo{Name: "gocodex"},
		RootURI:    &rootURI,
		Capabilities: protocol.ClientCapabilities{
			TextDocument: &protocol.TextDocumentClientCapabilities{
				Synchronization:    &protocol.TextDocumentSyncClientCapabilities{},
				PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{VersionSupport: &yes},
			},
			Workspace: &protocol.WorkspaceClientCapabilities{WorkspaceFolders: &yes},
		},
	}
	params.WorkspaceFolders = protocol.NewNullable([]protocol.WorkspaceFolder{{URI: rootURI, Name: filepath.Base(root)}})
	if s.InitOptions != nil {
		b, err := json.Marshal(s.InitOptions)
		if err != nil {
			proc.kill()
			_ = c.rpc.Close()
			return nil, fmt.Errorf("%s init_options: %w", s.ID, err)
		}
		params.InitializationOptions = protocol.LSPAny(b)
	}
	_, err := c.peer.Initialize(ctx, params)
	if err == nil {
		err = c.peer.Initialized(ctx, &protocol.InitializedParams{})
	}
	if err != nil {
		err = fmt.Errorf("initialize %s: %w", s.ID, c.explain(err))
		proc.kill()
		_ = c.rpc.Close()
		return nil, err
	}
	return c, nil
}

// explain adds what a server that died said on its way out (its end of the pipe closes a
// moment before it is reaped).
func (c *conn) explain(err error) error {
	grace := time.NewTimer(time.Second)
	defer grace.Stop()
	select {
	case <-c.proc.done:
		if tail := c.proc.stderr.String(); tail != "" {
			return fmt.Errorf("%w (%v: %s)", err, c.proc.err, tail)
		}
		return fmt.Errorf("%w (%v)", err, c.proc.err)
	case <-grace.C:
		return err
	}
}

// sync tells the server the current contents of paths (which changed on disk): opened the
// first time, the whole text again afterwards, closed when the file is gone. It returns the
// version each still-present file now has.
func (c *conn) sync(ctx context.Context, paths []string) map[string]int32 {
	want := map[string]int32{}
	var events []protocol.FileEvent
	for _, p := range paths {
		text, err := os.ReadFile(p)
		c.mu.Lock()
		version, isOpen := c.open[p]
		if err != nil {
			delete(c.open, p)
			delete(c.texts, p)
			delete(c.diags, p)
		} else {
			version++
			c.open[p] = version
			c.texts[p] = string(text)
			want[p] = version
		}
		c.mu.Unlock()
		u := uri.File(p)
		switch {
		case err != nil && isOpen:
			_ = c.peer.DidClose(ctx, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
			events = append(events, protocol.FileEvent{URI: u, Type: protocol.FileChangeTypeDeleted})
		case err != nil:
		case isOpen:
			_ = c.peer.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
				TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: version},
				ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: string(text)}},
			})
			events = append(events, protocol.FileEvent{URI: u, Type: protocol.FileChangeTypeChanged})
		default:
			_ = c.peer.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
				URI: u, LanguageID: protocol.LanguageKind(languageID(p)), Version: version, Text: string(text)}})
			events = append(events, protocol.FileEvent{URI: u, Type: protocol.FileChangeTypeChanged})
		}
	}
	if len(events) > 0 {
		// Files the server does not have open (a go.mod, a header) are read from disk.
		_ = c.peer.DidChangeWatchedFiles(ctx, &protocol.DidChangeWatchedFilesParams{Changes: events})
	}
	return want
}

// changedOpen lists the open documents whose file differs from the text the server has
// (a command rewrote or removed it).
func (c *conn) changedOpen() []string {
	c.mu.Lock()
	texts := make(map[string]string, len(c.texts))
	for p, t := range c.texts {
		texts[p] = t
	}
	c.mu.Unlock()
	var out []string
	for p, sent := range texts {
		if now, err := os.ReadFile(p); err != nil || string(now) != sent {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// await waits until the server has published diagnostics for every file of want at its
// version and then nothing more for quiet, or until settle has passed since start, or ctx
// ends. A server that leaves a clean file unpublished costs the whole settle window.
func (c *conn) await(ctx context.Context, want map[string]int32, start time.Time, settle, quiet time.Duration) {
	deadline := time.NewTimer(time.Until(start.Add(settle)))
	defer deadline.Stop()
	for {
		c.mu.Lock()
		ch := c.changed
		latest, complete := time.Time{}, true
		for p, v := range want {
			d, ok := c.diags[p]
			if !ok || d.received.Before(start) || (d.version != 0 && d.version < v) {
				complete = false
				break
			}
			if d.received.After(latest) {
				latest = d.received
			}
		}
		c.mu.Unlock()
		var quietTimer <-chan time.Time
		var stop func() bool
		if complete {
			left := time.Until(latest.Add(quiet))
			if left <= 0 {
				return
			}
			t := time.NewTimer(left)
			quietTimer, stop = t.C, t.Stop
		}
		select {
		case <-ch:
			if stop != nil {
				stop()
			}
		case <-quietTimer:
			return
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		case <-c.proc.done:
			return
		}
	}
}

// diagnostics returns what the server last published for paths (every file when paths is nil).
func (c *conn) diagnostics(paths []string) []FileDiagnostics {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []FileDiagnostics
	add := func(p string) {
		if d, ok := c.diags[p]; ok && len(d.items) > 0 {
			out = append(out, FileDiagnostics{Path: p, Items: d.items})
		}
	}
	if paths == nil {
		for p := range c.diags {
			add(p)
		}
		return out
	}
	for _, p := range paths {
		add(p)
	}
	return out
}

// publish records a publication and wakes the waiters.
func (c *conn) publish(params *protocol.PublishDiagnosticsParams) {
	path := params.URI.FsPath()
	var items []Diagnostic
	for _, d := range params.Diagnostics {
		sev := SeverityError
		switch d.Severity {
		case protocol.DiagnosticSeverityWarning:
			sev = SeverityWarning
		case protocol.DiagnosticSeverityInformation, protocol.DiagnosticSeverityHint:
			continue
		}
		item := Diagnostic{Line: int(d.Range.Start.Line) + 1, Column: int(d.Range.Start.Character) + 1, Severity: sev}
		switch m := d.Message.(type) {
		case protocol.String:
			item.Message = string(m)
		case *protocol.MarkupContent:
			item.Message = m.Value
		}
		item.Source, _ = d.Source.Get()
		items = append(items, item)
	}
	version, _ := params.Version.Get()
	c.mu.Lock()
	c.diags[path] = published{version: version, received: time.Now(), items: items}
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

// shutdown asks the server to leave, then ends it and whatever it started.
func (c *conn) shutdown() {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if c.peer.Shutdown(ctx) == nil {
		_ = c.peer.Exit(ctx)
		select {
		case <-c.proc.done:
		case <-ctx.Done():
		}
	}
	c.proc.kill()
	_ = c.rpc.Close()
}

// takeFirst reports whether this is the first request to wait on the server.
func (c *conn) takeFirst() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	first := !c.used
	c.used = true
	return first
}

// exited reports whether the server process has ended.
func (c *conn) exited() bool {
	select {
	case <-c.proc.done:
		return true
	default:
		return false
	}
}

// isClosing reports whether the session is ending it (an exit then is no crash).
func (c *conn) isClosing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closing
}

// client answers what servers ask of gocodex: diagnostics are kept, the rest is acknowledged.
type client struct {
	protocol.UnimplementedClient
	c *conn
}

func (cl *client) PublishDiagnostics(_ context.Context, params *protocol.PublishDiagnosticsParams) error {
	cl.c.publish(params)
	return nil
}

func (cl *client) LogMessage(context.Context, *protocol.LogMessageParams) error   { return nil }
func (cl *client) ShowMessage(context.Context, *protocol.ShowMessageParams) error { return nil }
func (cl *client) Progress(context.Context, *protocol.ProgressParams) error       { return nil }
func (cl *client) Telemetry(context.Context, protocol.LSPAny) error               { return nil }
func (cl *client) RegisterCapability(context.Context, *protocol.RegistrationParams) error {
	return nil
}
func (cl *client) WorkDoneProgressCreate(context.Context, *protocol.WorkDoneProgressCreateParams) error {
	return nil
}

func (cl *client) Configuration(_ context.Context, params *protocol.ConfigurationParams) ([]protocol.LSPAny, error) {
	out := make([]protocol.LSPAny, len(params.Items))
	for i := range out {
		out[i] = protocol.LSPAny("null")
	}
	return out, nil
}

func (cl *client) WorkspaceFolders(context.Context) ([]protocol.WorkspaceFolder, error) {
	return []protocol.WorkspaceFolder{{URI: uri.File(cl.c.root), Name: filepath.Base(cl.c.root)}}, nil
}
