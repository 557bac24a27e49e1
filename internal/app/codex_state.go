package app

import (
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/gocodex/gocodex/internal/codexstate"
	"github.com/gocodex/gocodex/internal/rollout"
	"github.com/gocodex/gocodex/internal/sessionindex"
	"github.com/gocodex/gocodex/protocol"
)

// codexStateIndex tells Codex's state database about the thread at the end of each turn
// (internal/codexstate), so that Codex's `resume --last` and pickers, which list from that
// database only, show a thread gocodex wrote at once. It does nothing until Codex has made
// the database; a failure is logged once and the thread goes on (the rollout is the truth,
// and Codex's own repair still finds it later).
type codexStateIndex struct {
	codexHome string
	logger    *slog.Logger
	now       func() time.Time

	mu     sync.Mutex
	head   *rollout.ThreadSummary // the rollout's head, once it holds the first user message
	name   string                 // the thread's name when its head was read
	tokens int64                  // the thread's total token count
	warned bool
}

// observe follows what the index needs from the events the recorder has written, and
// writes the row when a turn ends.
func (x *codexStateIndex) observe(ev protocol.Event, path string, settings func() rollout.Settings) {
	switch m := ev.Msg.(type) {
	case protocol.TokenCountEvent:
		if m.Info != nil {
			x.mu.Lock()
			x.tokens = m.Info.TotalTokenUsage.TotalTokens
			x.mu.Unlock()
		}
	case protocol.TurnCompleteEvent, protocol.TurnAbortedEvent:
		x.index(path, settings())
	}
}

func (x *codexStateIndex) index(path string, s rollout.Settings) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !codexstate.Exists(x.codexHome) {
		return
	}
	if x.head == nil {
		head, ok, err := rollout.ReadSummary(path)
		if err != nil || !ok {
			return // no first user message yet: Codex would hide the row anyway
		}
		x.head = &head
		// A fork may be named before its row exists (it carries its source's name).
		if names, err := sessionindex.Read(x.codexHome); err == nil {
			x.name = names[head.ID].Name
		}
	}
	h := x.head
	approval, _ := json.Marshal(s.ApprovalPolicy)
	var mode string
	if json.Unmarshal(approval, &mode) != nil {
		mode = string(approval) // a granular policy is an object
	}
	row := codexstate.Thread{
		ID: h.ID, RolloutPath: path, CreatedAt: h.CreatedAt, UpdatedAt: x.now(),
		Source: h.Source, ModelProvider: h.ModelProvider, Cwd: h.Cwd, FirstUserMessage: h.Preview,
		SandboxPolicy: codexstate.PermissionProfile(s.SandboxPolicy, s.Cwd), ApprovalMode: mode,
		TokensUsed: x.tokens, CLIVersion: h.CLIVersion, Model: s.Model, ReasoningEffort: s.Effort,
		HistoryMode: h.HistoryMode, Originator: h.Originator, Name: x.name,
	}
	if h.Git != nil {
		row.GitSHA, row.GitBranch, row.GitOriginURL = h.Git.CommitHash, h.Git.Branch, h.Git.RepositoryURL
	}
	if err := codexstate.IndexThread(x.codexHome, row); err != nil && !x.warned {
		x.warned = true
		x.logger.Warn("Codex's state database was not told about this thread; Codex's resume --last and pickers will show it after its next thread/list",
			"thread", h.ID, "err", err)
	}
}
