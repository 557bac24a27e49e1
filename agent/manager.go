package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/internal/prompt"
	"github.com/gocodex/gocodex/protocol"
)

// ThreadManager owns the threads of a process.
type ThreadManager struct {
	log     *slog.Logger
	mu      sync.Mutex
	threads map[string]*Thread
}

// NewThreadManager returns an empty manager; log may be nil.
func NewThreadManager(log *slog.Logger) *ThreadManager {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &ThreadManager{log: log, threads: map[string]*Thread{}}
}

// StartThread validates cfg, starts the thread's loop and queues session_configured as its
// first event. ctx only bounds start-up work (AGENTS.md discovery).
func (m *ThreadManager) StartThread(ctx context.Context, cfg ThreadConfig) (*Thread, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if cfg.Model == "" {
		return nil, errors.New("start thread: no model")
	}
	if cfg.Streamer == nil {
		return nil, errors.New("start thread: no model streamer")
	}
	if cfg.Cwd == "" {
		return nil, errors.New("start thread: no cwd")
	}
	if cfg.Agents != nil && cfg.UserInstructions == "" {
		opts := cfg.Agents.prompt()
		if opts.Cwd == "" {
			opts.Cwd = cfg.Cwd
		}
		text, err := prompt.UserInstructions(opts)
		if err != nil {
			return nil, fmt.Errorf("start thread: %w", err)
		}
		cfg.UserInstructions = text
	}
	id := cfg.ThreadID
	if id == "" {
		u, err := uuid.NewV7()
		if err != nil {
			return nil, fmt.Errorf("start thread: %w", err)
		}
		id = u.String()
	}
	t := newThread(cfg, id, m.log)
	approval, sandbox := cfg.ApprovalPolicy, cfg.SandboxPolicy
	effort := cfg.ReasoningEffort
	if effort == "" && cfg.ModelInfo.SupportsReasoning {
		effort = cfg.ModelInfo.DefaultReasoningEffort
	}
	t.emit("", protocol.SessionConfiguredEvent{
		SessionID:         id,
		Model:             cfg.Model,
		ModelProviderID:   cfg.ModelProviderID,
		ApprovalPolicy:    &approval,
		SandboxPolicy:     &sandbox,
		Cwd:               cfg.Cwd,
		ReasoningEffort:   effort,
		HistoryLogID:      cfg.HistoryLogID,
		HistoryEntryCount: cfg.HistoryEntryCount,
		RolloutPath:       cfg.RolloutPath,
		ForkedFromID:      cfg.ForkedFromID,
		InitialMessages:   initialMessages(cfg.InitialMessages),
	})
	if cfg.Skills != nil {
		for _, w := range cfg.Skills.Warnings {
			t.emit("", protocol.WarningEvent{Message: w})
		}
	}
	if f := cfg.OnStarted; f != nil {
		f(func(msg protocol.EventMsg) { t.emitUnlessClosed("", msg) })
	}
	m.mu.Lock()
	m.threads[id] = t
	m.mu.Unlock()
	go t.run()
	return t, nil
}

// newThread builds a thread's state; the caller starts its loop.
func newThread(cfg ThreadConfig, id string, fallbackLog *slog.Logger) *Thread {
	log := cfg.Logger
	if log == nil {
		log = fallbackLog
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	tctx, cancel := context.WithCancel(context.Background())
	t := &Thread{
		id:        id,
		cfg:       cfg,
		log:       log,
		now:       now,
		subs:      make(chan protocol.Submission, submissionCapacity),
		events:    newEventQueue(),
		done:      make(chan struct{}),
		ctx:       tctx,
		cancel:    cancel,
		approvals: waiters[protocol.ReviewDecision]{},
		turnDone:  make(chan *turn),
		settings: settings{
			model:          cfg.Model,
			info:           cfg.ModelInfo,
			cwd:            cfg.Cwd,
			approval:       cfg.ApprovalPolicy,
			sandbox:        cfg.SandboxPolicy,
			effort:         cfg.ReasoningEffort,
			summary:        cfg.ReasoningSummary,
			serviceTier:    cfg.ServiceTier,
			outputSchema:   cfg.OutputSchema,
			baseOverride:   cfg.BaseInstructions,
			developerInstr: cfg.DeveloperInstructions,
			userInstr:      cfg.UserInstructions,
			shell:          cfg.Shell,
			timezone:       cfg.Timezone,
		},
	}
	if len(cfg.InitialHistory) > 0 {
		t.hist.append(cfg.InitialHistory...)
		t.ctxState = contextState{injected: true, cwd: cfg.Cwd, sandbox: cfg.SandboxPolicy, approval: cfg.ApprovalPolicy}
	}
	if u := cfg.InitialUsage; u != nil {
		t.totalUsage, t.lastUsage, t.hasUsage = u.TotalTokenUsage, u.LastTokenUsage, true
	}
	return t
}

// GetThread returns a thread by id.
func (m *ThreadManager) GetThread(id string) (*Thread, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.threads[id]
	return t, ok
}

// RemoveThread forgets a thread and returns it; it keeps running until it is shut down.
func (m *ThreadManager) RemoveThread(id string) (*Thread, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.threads[id]
	delete(m.threads, id)
	return t, ok
}

// Close shuts every thread down and waits for their loops to end or ctx to expire. Events
// still queued stay readable.
func (m *ThreadManager) Close(ctx context.Context) error {
	m.mu.Lock()
	threads := make([]*Thread, 0, len(m.threads))
	for _, t := range m.threads {
		threads = append(threads, t)
	}
	m.threads = map[string]*Thread{}
	m.mu.Unlock()
	for _, t := range threads {
		if _, err := t.Submit(protocol.ShutdownOp{}); err != nil && !errors.Is(err, ErrThreadClosed) {
			return err
		}
	}
	for _, t := range threads {
		select {
		case <-t.Done():
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func initialMessages(msgs []protocol.EventMsg) []protocol.EventMsgJSON {
	if len(msgs) == 0 {
		return nil
	}
	out := make([]protocol.EventMsgJSON, len(msgs))
	for i, m := range msgs {
		out[i] = protocol.EventMsgJSON{Msg: m}
	}
	return out
}
