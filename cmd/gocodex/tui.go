package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/gocodex/gocodex/internal/execcli"
	"github.com/gocodex/gocodex/internal/gitmarker"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/tui"
	"github.com/gocodex/gocodex/internal/version"
	"github.com/gocodex/gocodex/protocol"
)

// tuiOptions are the flags of the interactive `gocodex [PROMPT]`.
type tuiOptions struct {
	Prompt   string
	Model    string
	Configs  []string
	Sandbox  string
	Approval string
	Cd       string
	Profile  string
	FullAuto bool
	Bypass   bool
	AddDirs  []string
}

// tuiRunner is the behaviour behind the root command; flag tests pass their own.
type tuiRunner func(ctx context.Context, opts tuiOptions, s streams) error

// addTUIFlags makes the root command the interactive UI, as `codex` with no subcommand is.
func addTUIFlags(root *cobra.Command, s streams, run tuiRunner) {
	var opts tuiOptions
	root.Use = "gocodex [PROMPT]"
	root.Args = cobra.MaximumNArgs(1)
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 1 {
			opts.Prompt = args[0]
		}
		return run(cmd.Context(), opts, s)
	}
	f := root.Flags()
	f.StringVarP(&opts.Model, "model", "m", "", "model the agent should use")
	f.StringArrayVarP(&opts.Configs, "config", "c", nil, "override a configuration value (key=value, value parsed as TOML)")
	f.StringVarP(&opts.Sandbox, "sandbox", "s", "", "sandbox policy: read-only, workspace-write, danger-full-access")
	f.StringVarP(&opts.Approval, "ask-for-approval", "a", "", "when to ask before running a command: untrusted, on-failure, on-request, never")
	f.StringVarP(&opts.Cd, "cd", "C", "", "use this directory as the agent's working root")
	f.StringVarP(&opts.Profile, "profile", "p", "", "configuration profile")
	f.BoolVar(&opts.FullAuto, "full-auto", false, "low-friction sandboxed automatic execution (on-request, workspace-write)")
	f.BoolVar(&opts.Bypass, "dangerously-bypass-approvals-and-sandbox", false, "skip all approvals and run commands without a sandbox")
	f.BoolVar(&opts.Bypass, "yolo", false, "alias of --dangerously-bypass-approvals-and-sandbox")
	_ = f.MarkHidden("yolo")
	f.StringArrayVar(&opts.AddDirs, "add-dir", nil, "additional writable directory")
}

func runTUI(ctx context.Context, opts tuiOptions, s streams) error {
	// Without a terminal there is nobody to type or approve; say so before starting a
	// thread (Codex refuses the same way).
	if !isTerminal(s.In) {
		return errors.New("stdin is not a terminal")
	}
	cfg, warnings, err := loadTUIConfig(opts, os.Getenv)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintf(s.ErrOut, "warning: %s\n", w)
	}
	a, err := app.New(app.Options{Config: cfg, Originator: "codex_cli_rs"})
	if err != nil {
		return err
	}
	defer a.Close(context.WithoutCancel(ctx))
	th, err := a.StartThread(ctx, app.ThreadOptions{Source: "cli"})
	if err != nil {
		return err
	}
	return tui.Run(ctx, tui.Options{
		Engine: th,
		Header: tui.Header{
			Version:  version.Version,
			Model:    cfg.Model,
			Cwd:      cfg.Cwd,
			Approval: cfg.ApprovalPolicy.String(),
			Sandbox:  string(cfg.SandboxPolicy.Mode),
		},
		Prompt: opts.Prompt,
		In:     s.In,
		Out:    s.Out,
		Env:    os.Environ(),
	})
}

// loadTUIConfig applies the flags over config.toml. Where neither chose a sandbox, a git
// work tree gets workspace-write: the person is at the keyboard to approve what leaves it.
func loadTUIConfig(opts tuiOptions, getenv func(string) string) (*config.Config, []config.Warning, error) {
	lo := config.LoadOptions{Cwd: opts.Cd, Profile: opts.Profile, CLIOverrides: opts.Configs, Env: getenv}
	ov := &lo.Overrides
	if opts.Model != "" {
		ov.Model = &opts.Model
	}
	ov.AdditionalWritableRoots = opts.AddDirs
	switch {
	case opts.Bypass:
		mode, never := protocol.SandboxDangerFullAccess, protocol.ApprovalNever
		ov.SandboxMode, ov.ApprovalPolicy = &mode, &never
	case opts.FullAuto:
		mode, onRequest := protocol.SandboxWorkspaceWrite, protocol.ApprovalOnRequest
		ov.SandboxMode, ov.ApprovalPolicy = &mode, &onRequest
	}
	if opts.Sandbox != "" && !opts.Bypass {
		mode, err := execcli.SandboxFlag(opts.Sandbox)
		if err != nil {
			return nil, nil, err
		}
		ov.SandboxMode = &mode
	}
	if opts.Approval != "" && !opts.Bypass {
		mode, err := protocol.ParseApprovalMode(opts.Approval)
		if err != nil {
			return nil, nil, fmt.Errorf("invalid value %q for --ask-for-approval: %w", opts.Approval, err)
		}
		ov.ApprovalPolicy = &protocol.AskForApproval{Mode: mode}
	}
	cfg, warnings, err := config.Load(lo)
	if err != nil {
		return nil, nil, err
	}
	if ov.SandboxMode == nil && !sandboxChosen(cfg) && cfg.TrustLevel == "" && inGitRepo(cfg.Cwd) {
		cfg.SandboxPolicy = protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite}
	}
	return cfg, warnings, nil
}

// isTerminal reports whether f is a terminal device.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(file.Fd()), unix.TCGETS)
	return err == nil
}

func inGitRepo(dir string) bool {
	for ; ; dir = filepath.Dir(dir) {
		if gitmarker.Exists(os.Stat, dir, ".git") {
			return true
		}
		if filepath.Dir(dir) == dir {
			return false
		}
	}
}
