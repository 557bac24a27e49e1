package app

import (
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/history"
	"github.com/gocodex/gocodex/internal/prompt"
	"github.com/gocodex/gocodex/internal/rollout"
	"github.com/gocodex/gocodex/internal/version"
	"github.com/gocodex/gocodex/protocol"
)

// persist writes into tc what the thread needs to be recorded and to read the message
// history: history.jsonl, a resumed thread's state (id, history, usage, the messages
// session_configured replays, its base instructions), the rollout recorder (unless the thread
// is ephemeral) and the thread id it records under. The returned function releases the
// recorder once the thread is done.
func (a *App) persist(tc *agent.ThreadConfig, cfg *config.Config, to ThreadOptions) (func(), error) {
	h := history.New(history.Options{CodexHome: cfg.CodexHome, Persistence: cfg.History.Persistence, MaxBytes: cfg.History.MaxBytes})
	logID, count, err := h.Metadata()
	if err != nil {
		a.opts.Logger.Warn("message history unreadable", "err", err)
	}
	tc.History, tc.HistoryLogID, tc.HistoryEntryCount = h, logID, count
	if to.Resume != nil {
		res := to.Resume.Reconstruct()
		for _, w := range res.Warnings {
			a.opts.Logger.Warn("rollout", "path", to.Resume.Path, "warning", w)
		}
		tc.ThreadID = res.Meta.ID
		if tc.InitialHistory == nil {
			tc.InitialHistory = res.History
		}
		tc.InitialUsage = res.TokenUsage
		tc.ForkedFromID = res.Meta.ForkedFromID
		tc.InitialMessages = to.Resume.InitialMessages()
		// Like Codex, a resumed thread keeps the base instructions it started with.
		if tc.BaseInstructions == "" && res.Meta.BaseInstructions != nil {
			tc.BaseInstructions = res.Meta.BaseInstructions.Text
		}
	}
	if to.Ephemeral {
		return func() {}, nil
	}
	settings := rollout.Settings{
		Cwd:            cfg.Cwd,
		Model:          cfg.Model,
		ApprovalPolicy: cfg.ApprovalPolicy,
		SandboxPolicy:  cfg.SandboxPolicy,
		Effort:         cfg.ReasoningEffort,
		Summary:        cfg.ReasoningSummary,
		Timezone:       prompt.TimezoneName(a.opts.Getenv, nil),
	}
	var rec *rollout.Recorder
	if to.Resume != nil {
		rec, err = rollout.Append(to.Resume.Path, rollout.Options{Settings: settings})
	} else {
		if tc.ThreadID == "" {
			id, uerr := uuid.NewV7()
			if uerr != nil {
				return nil, fmt.Errorf("thread id: %w", uerr)
			}
			tc.ThreadID = id.String()
		}
		source := to.Source
		if source == "" {
			source = "cli"
		}
		meta := rollout.SessionMeta{
			ID:               tc.ThreadID,
			Cwd:              cfg.Cwd,
			Originator:       firstNonEmpty(to.Originator, a.opts.Originator),
			CLIVersion:       version.Version,
			Source:           []byte(`"` + source + `"`),
			ModelProvider:    cfg.ModelProviderID,
			BaseInstructions: &rollout.BaseInstructions{Text: baseInstructions(cfg)},
			Git:              rollout.CollectGitInfo(cfg.Cwd),
		}
		linkSubagent(&meta, cfg, to.Subagent)
		rec, err = rollout.Create(cfg.CodexHome, rollout.Options{Meta: meta, Settings: settings})
	}
	if err != nil {
		return nil, err
	}
	index := &codexStateIndex{codexHome: cfg.CodexHome, logger: a.opts.Logger, now: time.Now}
	if tc.InitialUsage != nil {
		index.tokens = tc.InitialUsage.TotalTokenUsage.TotalTokens
	}
	tc.Recorder, tc.RolloutPath = &threadRecorder{rec, settings.Timezone, index}, rec.Path()
	a.rememberThread(tc.ThreadID, rec.Path(), nil)
	return func() {
		if err := rec.Close(); err != nil {
			a.opts.Logger.Error("close rollout", "path", rec.Path(), "err", err)
		}
	}, nil
}

// baseInstructions are the instructions the thread's model gets, for session_meta.
func baseInstructions(cfg *config.Config) string {
	if cfg.BaseInstructions != "" {
		return cfg.BaseInstructions
	}
	if b := modelInfo(cfg, cfg.Model).BaseInstructions; b != "" {
		return b
	}
	return prompt.DefaultBaseInstructions()
}

// The engine finds the recorder's optional compaction method by assertion: keep the method
// sets in step at compile time.
var (
	_ agent.Recorder           = (*rollout.Recorder)(nil)
	_ agent.CompactionRecorder = (*rollout.Recorder)(nil)
	_ agent.MessageHistory     = (*history.History)(nil)
)

// threadRecorder is the thread's rollout recorder as the engine sees it: it tells the
// recorder about setting changes, so turn_context lines show what each turn ran with, and
// keeps Codex's state database told about the thread.
type threadRecorder struct {
	*rollout.Recorder
	timezone string
	index    *codexStateIndex
}

func (r *threadRecorder) RecordTurnSettings(s agent.TurnSettings) {
	r.SetSettings(rollout.Settings{Cwd: s.Cwd, Model: s.Model, ApprovalPolicy: s.ApprovalPolicy,
		SandboxPolicy: s.SandboxPolicy, Effort: s.Effort, Summary: s.Summary, Timezone: r.timezone})
}

func (r *threadRecorder) RecordEvent(ev protocol.Event) error {
	if err := r.Recorder.RecordEvent(ev); err != nil {
		return err
	}
	r.index.observe(ev, r.Path(), r.Settings)
	return nil
}
