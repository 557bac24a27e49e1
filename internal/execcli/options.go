package execcli

import (
	"github.com/gocodex/gocodex/internal/faceopts"
)

// RunOptions is everything `gocodex exec` was asked to do, parsed from flags by cmd/gocodex
// and tested apart from the run itself. The flags the faces share are in Flags.
type RunOptions struct {
	faceopts.Flags
	Prompt       string // "" or "-" reads stdin
	HasPrompt    bool
	JSON         bool // --json / --experimental-json
	SkipGitRepo  bool
	OutputLast   string // -o
	OutputSchema string
	Color        string
	Ephemeral    bool
	IgnoreRules  bool
	// BypassHookTrust runs hooks that are not trusted (--dangerously-bypass-hook-trust).
	BypassHookTrust bool
	// Worktree runs the session in a new managed Git worktree (--worktree, Codex 0.171).
	Worktree bool

	// Review, when set, runs a code review instead of a prompt.
	Review *ReviewOptions

	// Resume: a thread to continue (`exec resume ID` or `--last`).
	Resume     bool
	ResumeID   string
	ResumeLast bool
	ResumeAll  bool
	// ForkID, with Resume, starts a new thread from a copy of this one (`exec fork ID`).
	ForkID string
}

// ExecFlags are the shared flags `gocodex exec` offers.
const ExecFlags = faceopts.Model | faceopts.Config | faceopts.Features | faceopts.Sandbox |
	faceopts.FullAuto | faceopts.Bypass | faceopts.Cd | faceopts.AddDir | faceopts.Profile |
	faceopts.OSS | faceopts.Images | faceopts.IgnoreUserConfig | faceopts.StrictConfig

// ReviewOptions are the targets of `gocodex review` / `gocodex exec review`; custom
// instructions come as the prompt.
type ReviewOptions struct {
	Uncommitted bool
	Base        string
	Commit      string
	Title       string
}
