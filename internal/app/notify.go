package app

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os/exec"
	"sync"

	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/protocol"
)

// The notify program (config `notify = ["prog", "arg", ...]`): after each turn it is started,
// without a shell and without waiting for it, with one more argument holding the JSON Codex
// passes. A program that cannot start or fails is a logged warning; the turn never waits.

// notifyPayload is Codex 0.169's agent-turn-complete JSON, keys in its order.
type notifyPayload struct {
	Type                 string   `json:"type"`
	ThreadID             string   `json:"thread-id"`
	TurnID               string   `json:"turn-id"`
	Cwd                  string   `json:"cwd"`
	Client               string   `json:"client,omitempty"`
	InputMessages        []string `json:"input-messages"`
	LastAssistantMessage *string  `json:"last-assistant-message,omitempty"`
}

// notifyClient is the client name Codex puts in the payload for a face's originator.
func notifyClient(originator string) string {
	if originator == "codex_cli_rs" {
		return "codex-tui"
	}
	return originator
}

// turnNotifier follows one thread's events through its recorder and runs the notify program
// at each turn_complete. It wraps the thread's own recorder (nil for an ephemeral thread),
// forwarding everything to it.
type turnNotifier struct {
	inner  agent.Recorder
	argv   []string
	client string
	logger *slog.Logger
	// running counts started programs not yet reaped (tests wait on it; nothing else does).
	running *sync.WaitGroup

	mu       sync.Mutex
	threadID string
	cwd      string
	inputs   []string // the thread's user messages so far (cumulative, as Codex's)
}

func newTurnNotifier(inner agent.Recorder, argv []string, client, threadID, cwd string, earlier []protocol.EventMsg, logger *slog.Logger, running *sync.WaitGroup) *turnNotifier {
	n := &turnNotifier{inner: inner, argv: argv, client: client, logger: logger, running: running, threadID: threadID, cwd: cwd}
	for _, m := range earlier {
		if um, ok := m.(protocol.UserMessageEvent); ok {
			n.inputs = append(n.inputs, um.Message)
		}
	}
	return n
}

func (n *turnNotifier) RecordItems(items []protocol.ResponseItem) error {
	if n.inner == nil {
		return nil
	}
	return n.inner.RecordItems(items)
}

func (n *turnNotifier) RecordEvent(ev protocol.Event) error {
	n.observe(ev.Msg)
	if n.inner == nil {
		return nil
	}
	return n.inner.RecordEvent(ev)
}

func (n *turnNotifier) Flush() error {
	if n.inner == nil {
		return nil
	}
	return n.inner.Flush()
}

func (n *turnNotifier) RecordCompacted(message string, replacement []protocol.ResponseItem) error {
	if rec, ok := n.inner.(agent.CompactionRecorder); ok {
		return rec.RecordCompacted(message, replacement)
	}
	return nil
}

func (n *turnNotifier) RecordTurnSettings(s agent.TurnSettings) {
	n.mu.Lock()
	if s.Cwd != "" {
		n.cwd = s.Cwd
	}
	n.mu.Unlock()
	if rec, ok := n.inner.(agent.SettingsRecorder); ok {
		rec.RecordTurnSettings(s)
	}
}

func (n *turnNotifier) observe(msg protocol.EventMsg) {
	switch m := msg.(type) {
	case protocol.SessionConfiguredEvent:
		n.mu.Lock()
		n.threadID = m.SessionID
		n.mu.Unlock()
	case protocol.UserMessageEvent:
		n.mu.Lock()
		n.inputs = append(n.inputs, m.Message)
		n.mu.Unlock()
	case protocol.TurnCompleteEvent:
		n.mu.Lock()
		p := notifyPayload{Type: "agent-turn-complete", ThreadID: n.threadID, TurnID: m.TurnID, Cwd: n.cwd,
			Client: n.client, InputMessages: append([]string{}, n.inputs...), LastAssistantMessage: m.LastAgentMessage}
		n.mu.Unlock()
		n.run(p)
	}
}

// run starts the program with the payload as its last argument and reaps it in the
// background: the turn goes on at once.
func (n *turnNotifier) run(p notifyPayload) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		n.logger.Warn("notify: encode payload", "err", err)
		return
	}
	payload := string(bytes.TrimRight(buf.Bytes(), "\n"))
	args := append(append([]string{}, n.argv[1:]...), payload)
	cmd := exec.Command(n.argv[0], args...) // stdin, stdout and stderr are /dev/null
	if err := cmd.Start(); err != nil {
		n.logger.Warn("notify program could not start", "program", n.argv[0], "err", err)
		return
	}
	n.running.Add(1)
	go func() { // owned by the child process: ends when it exits
		defer n.running.Done()
		if err := cmd.Wait(); err != nil {
			n.logger.Warn("notify program failed", "program", n.argv[0], "err", err)
		}
	}()
}

var (
	_ agent.Recorder           = (*turnNotifier)(nil)
	_ agent.CompactionRecorder = (*turnNotifier)(nil)
	_ agent.SettingsRecorder   = (*turnNotifier)(nil)
)

// wrapNotify puts a turnNotifier in front of the thread's recorder when the configuration
// names a notify program.
func (a *App) wrapNotify(tc *agent.ThreadConfig, cfg *config.Config, originator string) {
	if len(cfg.Notify) == 0 {
		return
	}
	if cfg.Notify[0] == "" {
		a.opts.Logger.Warn("notify: the program name (the first element of notify) is empty; nothing will run")
		return
	}
	client := notifyClient(firstNonEmpty(originator, a.opts.Originator))
	tc.Recorder = newTurnNotifier(tc.Recorder, cfg.Notify, client, tc.ThreadID, cfg.Cwd, tc.InitialMessages, a.opts.Logger, &a.notifying)
}
