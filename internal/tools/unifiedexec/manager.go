// Package unifiedexec is Codex's unified exec: `exec_command` starts a command (with pipes
// or a pseudo-terminal) and waits a while for output; a command still running after that is
// kept under a session id, and `write_stdin` writes to it or polls it. Processes outlive the
// turn that started them; the thread ends them with Close (or clean_background_terminals
// with CleanBackgroundTerminals).
package unifiedexec

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocodex/gocodex/internal/process"
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/internal/tools/shell"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// Codex's limits.
const (
	MinYield            = 250 * time.Millisecond
	MaxYield            = 30 * time.Second
	DefaultExecYield    = 10 * time.Second
	DefaultWriteYield   = 250 * time.Millisecond
	MinEmptyPollYield   = 5 * time.Second
	MaxEmptyPollYield   = 300 * time.Second
	DefaultOutputTokens = 10_000
	MaxProcesses        = 64
	WarnProcesses       = 60
	// protectedRecent processes, the most recently used, are never pruned.
	protectedRecent = 8
	// exitGrace is how long a call keeps reading after the process exited, for output
	// still in flight.
	exitGrace = 50 * time.Millisecond
)

// commandEnv is added to every unified exec command: no colours or pagers that would wait
// for a person.
var commandEnv = map[string]string{
	"NO_COLOR":  "1",
	"LANG":      "C.UTF-8",
	"LC_CTYPE":  "C.UTF-8",
	"LC_ALL":    "C.UTF-8",
	"COLORTERM": "",
	"PAGER":     "cat",
	"GIT_PAGER": "cat",
	"GH_PAGER":  "cat",
	"CODEX_CI":  "1",
}

// Options tune a Manager; zero values take Codex's defaults.
type Options struct {
	// MaxProcesses live at once (64); the least recently used is ended to make room.
	MaxProcesses int
	// WarnProcesses is the count from which the model is warned (60).
	WarnProcesses int
	// Rand supplies session and chunk ids; a time-seeded generator when nil.
	Rand *rand.Rand
}

// Manager owns one thread's unified exec processes.
type Manager struct {
	cfg  *shell.Config
	opts Options

	mu       sync.Mutex
	rng      *rand.Rand
	sessions map[int]*session
	reserved map[int]bool
	useSeq   uint64
	closed   bool
}

// New returns a manager using cfg's gate, environment policy and shell.
func New(cfg *shell.Config, opts Options) *Manager {
	if opts.MaxProcesses <= 0 {
		opts.MaxProcesses = MaxProcesses
	}
	if opts.WarnProcesses <= 0 {
		opts.WarnProcesses = WarnProcesses
	}
	rng := opts.Rand
	if rng == nil {
		now := uint64(time.Now().UnixNano())
		rng = rand.New(rand.NewPCG(now, now>>17|1))
	}
	return &Manager{cfg: cfg, opts: opts, rng: rng, sessions: map[int]*session{}, reserved: map[int]bool{}}
}

// Handlers returns the exec_command and write_stdin handlers, keyed by tool name.
func (m *Manager) Handlers() map[string]tool.Handler {
	return map[string]tool.Handler{
		tools.NameExecCommand: &ExecCommandHandler{m: m},
		tools.NameWriteStdin:  &WriteStdinHandler{m: m},
	}
}

// session is one live process.
type session struct {
	id      int
	proc    *process.Process
	tty     bool
	argv    []string
	cmd     string // the command as the model wrote it
	cwd     string
	callID  string
	turnID  string
	emit    func(protocol.EventMsg)
	lastUse uint64

	mu      sync.Mutex
	pending []byte
	notify  chan struct{}
	// ended is closed once exec_command_end has been emitted.
	ended chan struct{}
	// cleaned is set when CleanBackgroundTerminals ended the process: Codex 0.169 reports
	// such a process with exit code -1.
	cleaned atomic.Bool
	// writeMu is held by a write_stdin until it reported its interaction, so the end of a
	// process that exits meanwhile comes after it.
	writeMu sync.Mutex
}

// push queues output for the next call, keeping the newest MaxRetainedOutput bytes.
func (s *session) push(b []byte) {
	s.mu.Lock()
	s.pending = append(s.pending, b...)
	if over := len(s.pending) - process.MaxRetainedOutput; over > 0 {
		s.pending = append(s.pending[:0], s.pending[over:]...)
	}
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

func (s *session) take() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.pending
	s.pending = nil
	return b
}

// watch emits exec_command_end once the process has exited and its output is read: the
// single place the end event comes from, so it follows every delta.
func (m *Manager) watch(s *session) {
	<-s.proc.Done()
	s.writeMu.Lock()
	s.writeMu.Unlock() //nolint:staticcheck // waits for a write_stdin in progress to report its interaction
	agg, _, _ := s.proc.Output()
	text := agg.Text()
	code := s.proc.ExitCode()
	if s.cleaned.Load() {
		code = -1
	}
	s.emit(protocol.ExecCommandEndEvent{
		CallID: s.callID, ProcessID: fmt.Sprint(s.id), TurnID: s.turnID, Command: s.argv, Cwd: s.cwd,
		ParsedCmd: shell.ParsedCommand(s.argv), Source: protocol.SourceUnifiedExecStartup,
		Stdout: text, AggregatedOutput: text, ExitCode: code,
		Duration:        protocol.Duration(s.proc.Duration()),
		FormattedOutput: process.FormattedTruncate(text, m.cfg.TruncationPolicy()),
	})
	close(s.ended)
}

// allocateID reserves a random id in [1000, 100000) that is not in use.
func (m *Manager) allocateID() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	for {
		id := 1000 + m.rng.IntN(99_000)
		if !m.reserved[id] {
			m.reserved[id] = true
			return id
		}
	}
}

func (m *Manager) chunkID() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	const hex = "0123456789abcdef"
	b := make([]byte, 6)
	for i := range b {
		b[i] = hex[m.rng.IntN(16)]
	}
	return string(b)
}

func (m *Manager) release(id int) {
	m.mu.Lock()
	delete(m.sessions, id)
	delete(m.reserved, id)
	m.mu.Unlock()
}

// store keeps a running process, pruning one if the store is full, and returns the count
// now open and the pruned session (to end outside the lock).
func (m *Manager) store(s *session) (int, *session, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, nil, false
	}
	var pruned *session
	if len(m.sessions) >= m.opts.MaxProcesses {
		pruned = m.pruneCandidate()
		if pruned != nil {
			delete(m.sessions, pruned.id)
			delete(m.reserved, pruned.id)
		}
	}
	m.useSeq++
	s.lastUse = m.useSeq
	m.sessions[s.id] = s
	return len(m.sessions), pruned, true
}

// pruneCandidate picks the process to end for room: never one of the most recently used,
// an exited one first, else the least recently used. Called with m.mu held.
func (m *Manager) pruneCandidate() *session {
	all := make([]*session, 0, len(m.sessions))
	for _, s := range m.sessions {
		all = append(all, s)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].lastUse > all[j].lastUse })
	if len(all) <= protectedRecent {
		return nil
	}
	candidates := all[protectedRecent:]
	for i := len(candidates) - 1; i >= 0; i-- {
		if candidates[i].proc.HasExited() {
			return candidates[i]
		}
	}
	return candidates[len(candidates)-1]
}

func (m *Manager) lookup(id int) (*session, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if ok {
		m.useSeq++
		s.lastUse = m.useSeq
	}
	return s, ok
}

// Len is the number of live processes.
func (m *Manager) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}

// CleanBackgroundTerminals ends every process and waits until each has been reaped and its
// end event sent. The manager stays usable.
func (m *Manager) CleanBackgroundTerminals() {
	m.mu.Lock()
	all := make([]*session, 0, len(m.sessions))
	for id, s := range m.sessions {
		all = append(all, s)
		delete(m.sessions, id)
		delete(m.reserved, id)
	}
	m.mu.Unlock()
	for _, s := range all {
		s.cleaned.Store(true)
		s.proc.Kill()
	}
	for _, s := range all {
		<-s.ended
	}
}

// Terminal is a process the model left running (thread/backgroundTerminals/list).
type Terminal struct {
	ProcessID string
	CallID    string // the exec_command call that started it
	Command   string // as the model wrote it
	Cwd       string
}

// Terminals lists the running processes, oldest session id first.
func (m *Manager) Terminals() []Terminal {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := make([]int, 0, len(m.sessions))
	for id := range m.sessions {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	out := make([]Terminal, 0, len(ids))
	for _, id := range ids {
		s := m.sessions[id]
		out = append(out, Terminal{ProcessID: fmt.Sprint(id), CallID: s.callID, Command: s.cmd, Cwd: s.cwd})
	}
	return out
}

// Terminate ends one running process as CleanBackgroundTerminals does (its end reports exit
// code -1) and waits for its end event; false when no process has that id.
func (m *Manager) Terminate(processID string) bool {
	m.mu.Lock()
	var s *session
	for id, cand := range m.sessions {
		if fmt.Sprint(id) == processID {
			s = cand
			delete(m.sessions, id)
			delete(m.reserved, id)
			break
		}
	}
	m.mu.Unlock()
	if s == nil {
		return false
	}
	s.cleaned.Store(true)
	s.proc.Kill()
	<-s.ended
	return true
}

// Close ends every process for good (the thread is over); later calls fail.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.CleanBackgroundTerminals()
}
