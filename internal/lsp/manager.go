package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gocodex/gocodex/protocol"
)

// SpawnFunc builds the command that runs a server (argv, program already found) for root
// under the sandbox policy of the turn that needs it. The manager starts and ends it.
type SpawnFunc func(ctx context.Context, policy protocol.SandboxPolicy, s Server, root string, argv []string) (*exec.Cmd, error)

// Options configure a session's servers.
type Options struct {
	// Cwd is the session's working directory: the root of a file with no root marker above
	// it, and what "the workspace" means to Diagnostics.
	Cwd string
	// Servers are the servers the session may start (Configured).
	Servers []Server
	// Spawn builds a server's command (the sandbox's, see SandboxSpawner).
	Spawn SpawnFunc
	// LookPath finds a server's program; exec.LookPath when nil.
	LookPath func(string) (string, error)
	// Settle is how long an edit waits at most for the servers' diagnostics (3s); FirstSettle
	// the same for the first request to a server just started, which loads the workspace
	// first (10s); Quiet how long no new publication must come once every touched file has
	// one at its version (100ms).
	Settle, FirstSettle, Quiet time.Duration
	// StartTimeout bounds a server's start and initialize.
	StartTimeout time.Duration
	// Now is the clock of the restart backoff; time.Now when nil.
	Now func() time.Time
}

// Call is what one tool call brings: the turn's sandbox policy, under which a server started
// now runs, and where the session's warnings go.
type Call struct {
	Policy protocol.SandboxPolicy
	Warn   func(string)
}

// Manager is the language servers of one session. Safe for concurrent use.
type Manager struct {
	opts Options

	mu      sync.Mutex
	conns   map[connKey]*conn
	starts  map[connKey]*sync.Mutex // one start at a time per server and root
	crashes map[connKey]crashState
	warned  map[string]bool
	pending []string // warnings that came between calls (a crash), told at the next
	closed  bool
	wg      sync.WaitGroup // crash watchers
}

type connKey struct{ id, root string }

type crashState struct {
	count   int
	retryAt time.Time
}

// New returns the session's manager; nothing starts until a file needs a server.
func New(opts Options) *Manager {
	if opts.LookPath == nil {
		opts.LookPath = exec.LookPath
	}
	if opts.Settle == 0 {
		opts.Settle = 3 * time.Second
	}
	if opts.FirstSettle == 0 {
		opts.FirstSettle = 10 * time.Second
	}
	if opts.Quiet == 0 {
		opts.Quiet = 100 * time.Millisecond
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 30 * time.Second
	}
	return &Manager{opts: opts, conns: map[connKey]*conn{}, starts: map[connKey]*sync.Mutex{},
		crashes: map[connKey]crashState{}, warned: map[string]bool{}}
}

// AfterEdit tells the servers of paths (files just written or removed) what changed and
// returns the errors and warnings they publish for those files within the settle window.
func (m *Manager) AfterEdit(ctx context.Context, call Call, paths []string) []FileDiagnostics {
	out, _ := m.collect(ctx, call, paths, paths)
	return out
}

// AfterCommand finds the documents the servers have open (files edited or checked earlier in
// the session) that a command changed or removed, and reports on them as AfterEdit does;
// nil when none changed.
func (m *Manager) AfterCommand(ctx context.Context, call Call) []FileDiagnostics {
	m.mu.Lock()
	conns := make([]*conn, 0, len(m.conns))
	for _, c := range m.conns {
		conns = append(conns, c)
	}
	m.mu.Unlock()
	var changed []string
	for _, c := range conns {
		changed = append(changed, c.changedOpen()...)
	}
	if len(changed) == 0 {
		return nil
	}
	return m.AfterEdit(ctx, call, changed)
}

// Diagnostics returns the current errors and warnings of path, or of the whole workspace
// when path is "" (every file of the cwd a server serves, up to a cap, is opened). It says
// so when no server serves path.
func (m *Manager) Diagnostics(ctx context.Context, call Call, path string) ([]FileDiagnostics, error) {
	if path != "" {
		if m.serverFor(path) == nil {
			return nil, fmt.Errorf("no language server handles %s", path)
		}
		if _, err := os.Stat(path); err != nil {
			return nil, err
		}
		out, reached := m.collect(ctx, call, []string{path}, []string{path})
		if reached == 0 {
			return nil, fmt.Errorf("the language server for %s is not running (see the warning)", path)
		}
		return out, nil
	}
	files := m.workspaceFiles()
	if len(files) == 0 {
		return nil, fmt.Errorf("no file in %s is served by a language server", m.opts.Cwd)
	}
	out, reached := m.collect(ctx, call, files, nil)
	if reached == 0 {
		return nil, fmt.Errorf("no language server for the files of %s is running (see the warning)", m.opts.Cwd)
	}
	return out, nil
}

// collect syncs paths with their servers, waits for them to settle and reports on report
// (everything the servers know when nil); reached counts the servers that answered.
func (m *Manager) collect(ctx context.Context, call Call, paths, report []string) (out []FileDiagnostics, reached int) {
	m.flushWarnings(call)
	groups := map[*conn][]string{}
	var order []*conn
	for _, p := range paths {
		s := m.serverFor(p)
		if s == nil {
			continue
		}
		c := m.connFor(ctx, call, *s, p)
		if c == nil {
			continue
		}
		if _, ok := groups[c]; !ok {
			order = append(order, c)
		}
		groups[c] = append(groups[c], p)
	}
	start := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, c := range order {
		wg.Add(1)
		go func() {
			defer wg.Done()
			settle := m.opts.Settle
			if c.takeFirst() {
				settle = m.opts.FirstSettle
			}
			want := c.sync(ctx, groups[c])
			c.await(ctx, want, start, settle, m.opts.Quiet)
			var got []FileDiagnostics
			if report == nil {
				got = c.diagnostics(nil)
			} else {
				got = c.diagnostics(groups[c])
			}
			mu.Lock()
			out = append(out, got...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	m.flushWarnings(call) // a crash found on the way
	return out, len(order)
}

func (m *Manager) serverFor(path string) *Server { return serverOf(m.opts.Servers, path) }

func serverOf(servers []Server, path string) *Server {
	for i := range servers {
		if servers[i].Serves(path) {
			return &servers[i]
		}
	}
	return nil
}

// connFor returns the running server for path's root, starting it when needed. It is nil
// (after one warning per session) when the server's program is missing, or while a crashed
// server waits out its backoff.
func (m *Manager) connFor(ctx context.Context, call Call, s Server, path string) *conn {
	root := rootOf(s, path, m.opts.Cwd, exists)
	key := connKey{s.ID, root}
	policy, _ := json.Marshal(call.Policy)

	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	lock, ok := m.starts[key]
	if !ok {
		lock = &sync.Mutex{}
		m.starts[key] = lock
	}
	m.mu.Unlock()
	lock.Lock()
	defer lock.Unlock()

	c := m.current(key)
	if c != nil && c.exited() { // crashed, and its watcher has not said so yet
		m.crashed(key, c)
		c = nil
	}
	m.mu.Lock()
	crash := m.crashes[key]
	m.mu.Unlock()
	if c != nil && c.policy == string(policy) {
		return c
	}
	if c != nil { // the turn's policy changed: the server runs under the new one
		m.drop(key, c)
		c.shutdown()
	}
	if m.opts.Now().Before(crash.retryAt) {
		return nil
	}
	argv, ok := m.command(s)
	if !ok {
		m.warnOnce(call, "missing:"+s.ID, missingMessage(s))
		return nil
	}
	c, err := m.start(ctx, call, s, root, string(policy), argv)
	if err != nil {
		m.noteCrash(key, call, fmt.Sprintf("language server %s could not start: %v", s.ID, err))
		return nil
	}
	return c
}

func (m *Manager) start(ctx context.Context, call Call, s Server, root, policy string, argv []string) (*conn, error) {
	ctx, cancel := context.WithTimeout(ctx, m.opts.StartTimeout)
	defer cancel()
	cmd, err := m.opts.Spawn(ctx, call.Policy, s, root, argv)
	if err != nil {
		return nil, err
	}
	proc, err := startProcess(cmd)
	if err != nil {
		return nil, err
	}
	c, err := dial(ctx, s, root, policy, proc) // ends proc when it fails
	if err != nil {
		return nil, err
	}
	key := connKey{s.ID, root}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		c.shutdown()
		return nil, fmt.Errorf("session ended")
	}
	m.conns[key] = c
	m.wg.Add(1)
	m.mu.Unlock()
	go m.watch(key, c) // ends when the server does
	return c, nil
}

// watch notices a server that exits unasked: it is dropped, and started again on the next
// need once its backoff (1s, doubling up to 30s) has passed.
func (m *Manager) watch(key connKey, c *conn) {
	defer m.wg.Done()
	<-c.proc.done
	if !c.isClosing() {
		m.crashed(key, c)
	}
}

// crashed ends what a server that exited unasked left (its helper processes, the
// connection) and, the first time, notes the crash.
func (m *Manager) crashed(key connKey, c *conn) {
	c.proc.kill()
	_ = c.rpc.Close()
	m.mu.Lock()
	mine := m.conns[key] == c
	if mine { // dropped and backed off at once: a request in between would start it again
		delete(m.conns, key)
		m.backOff(key)
	}
	m.mu.Unlock()
	if mine {
		msg := fmt.Sprintf("language server %s exited (%v)", key.id, c.proc.err)
		if tail := c.proc.stderr.String(); tail != "" {
			msg += ": " + lastLine(tail)
		}
		m.warnOnce(Call{}, "crash:"+key.id, msg+"; it is restarted when next needed")
	}
}

func (m *Manager) current(key connKey) *conn {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.conns[key]
}

// drop forgets c if it is still the server of key.
func (m *Manager) drop(key connKey, c *conn) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.conns[key] != c {
		return false
	}
	delete(m.conns, key)
	return true
}

func (m *Manager) noteCrash(key connKey, call Call, msg string) {
	m.mu.Lock()
	m.backOff(key)
	m.mu.Unlock()
	m.warnOnce(call, "crash:"+key.id, msg)
}

// backOff puts off the next start of key's server: 1s after the first failure, doubling up
// to 30s. m.mu is held.
func (m *Manager) backOff(key connKey) {
	cs := m.crashes[key]
	backoff := time.Second << min(cs.count, 5)
	cs.count++
	cs.retryAt = m.opts.Now().Add(min(backoff, 30*time.Second))
	m.crashes[key] = cs
}

func (m *Manager) warnOnce(call Call, key, msg string) {
	m.mu.Lock()
	seen := m.warned[key]
	m.warned[key] = true
	m.mu.Unlock()
	if seen {
		return
	}
	if call.Warn == nil {
		m.mu.Lock()
		m.pending = append(m.pending, msg)
		m.mu.Unlock()
		return
	}
	call.Warn(msg)
}

func (m *Manager) flushWarnings(call Call) {
	if call.Warn == nil {
		return
	}
	m.mu.Lock()
	pending := m.pending
	m.pending = nil
	m.mu.Unlock()
	for _, msg := range pending {
		call.Warn(msg)
	}
}

// command is the first of the server's argvs whose program is found.
func (m *Manager) command(s Server) ([]string, bool) { return Locate(s, m.opts.LookPath) }

// Locate returns the first of the server's argvs whose program lookPath finds, with the
// program's path.
func Locate(s Server, lookPath func(string) (string, error)) ([]string, bool) {
	for _, argv := range s.Commands {
		if len(argv) == 0 {
			continue
		}
		if path, err := lookPath(argv[0]); err == nil {
			return append([]string{path}, argv[1:]...), true
		}
	}
	return nil, false
}

func missingMessage(s Server) string {
	var names []string
	for _, argv := range s.Commands {
		if len(argv) > 0 {
			names = append(names, argv[0])
		}
	}
	msg := fmt.Sprintf("language server %s is not installed (%s not found on PATH): edits get no diagnostics", s.ID, strings.Join(names, " or "))
	if s.Install != "" {
		msg += "; install it with: " + s.Install
	}
	return msg + " (or set `lsp = false` in config.toml)"
}

// Close ends every server and what each started; the manager starts none afterwards.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	conns := make([]*conn, 0, len(m.conns))
	for _, c := range m.conns {
		conns = append(conns, c)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.shutdown()
		}()
	}
	wg.Wait()
	m.wg.Wait()
}

// maxWorkspaceFiles caps how many files Diagnostics opens for the whole workspace.
const maxWorkspaceFiles = 500

// workspaceFiles lists the files of the workspace a server serves.
func (m *Manager) workspaceFiles() []string {
	return WorkspaceFiles(m.opts.Cwd, m.opts.Servers, maxWorkspaceFiles)
}

// WorkspaceFiles lists up to limit files under dir that one of servers serves, skipping hidden
// folders and vendored ones (node_modules, vendor, target).
func WorkspaceFiles(dir string, servers []Server, limit int) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			name := d.Name()
			if p != dir && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" || name == "target") {
				return filepath.SkipDir
			}
			return nil
		}
		if len(out) >= limit {
			return filepath.SkipAll
		}
		if d.Type().IsRegular() && serverOf(servers, p) != nil {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
