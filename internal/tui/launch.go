package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/host/threads"
	"github.com/gocodex/gocodex/internal/host/worktree"
	"github.com/gocodex/gocodex/internal/iostreams"
	"github.com/gocodex/gocodex/internal/version"
	"github.com/gocodex/gocodex/protocol"
)

// Originator is what the interactive UI calls itself in the originator header, as Codex's.
const Originator = "codex_cli_rs"

// LaunchOptions are what the interactive command hands the UI: its flags as load options,
// the configuration loaded with them (LoadConfig), and the thread to open.
type LaunchOptions struct {
	// Load are the flags over config.toml; the configuration is loaded again with them once
	// the person trusts the folder (trust changes the defaults and adds the project's config).
	Load     config.LoadOptions
	Config   *config.Config
	Warnings []config.Warning
	// Flags are the shared flags (--oss readies a local server; -i images).
	Flags faceopts.Flags
	// Resume is the recorded thread to continue (resume, fork); nil starts a new one.
	Resume *threads.Rollout
	// ResumePicker, ForkPicker and PickerNotices open the picker at start (see Options).
	ResumePicker  bool
	ForkPicker    bool
	PickerNotices []string
	Prompt        string
	NoAltScreen   bool
	// BypassHookTrust runs lifecycle hooks that are not trusted.
	BypassHookTrust bool
	// Worktree is the managed worktree the new session runs in (--worktree); the thread is
	// recorded as its owner once it starts.
	Worktree *worktree.Managed
}

// LoadConfig applies the flags over config.toml. Where neither chose a sandbox, a git work
// tree gets workspace-write: the person is at the keyboard to approve what leaves it.
func LoadConfig(fac *faceopts.Factory, lo config.LoadOptions) (*config.Config, []config.Warning, error) {
	cfg, warnings, err := fac.Config(lo)
	if err != nil {
		return nil, nil, err
	}
	if lo.Overrides.SandboxMode == nil && !faceopts.SandboxChosen(cfg) && cfg.TrustLevel == "" && faceopts.InGitRepo(cfg.Cwd) {
		cfg.SandboxPolicy = protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite}
	}
	return cfg, warnings, nil
}

// Launch runs the interactive UI on the process's host: the folder's trust screen, the
// sign-in screen when there are no credentials, then the UI on a new or resumed thread.
func Launch(ctx context.Context, fac *faceopts.Factory, o LaunchOptions) error {
	s, cfg, warnings := fac.IO, o.Config, o.Warnings
	if err := CheckImages(cfg.Cwd, o.Flags.Images); err != nil {
		return err
	}
	if trusted, err := askTrust(ctx, cfg, s); err != nil {
		return err
	} else if trusted {
		// Trust changes the defaults and loads the project's own config: load again.
		if cfg, warnings, err = LoadConfig(fac, o.Load); err != nil {
			return err
		}
	}
	// The configuration warnings are warning lines of the transcript (Notices), once the UI is up.
	var warningLines []string
	for _, w := range warnings {
		warningLines = append(warningLines, w.String())
	}
	if err := o.Flags.PrepareOSS(ctx, cfg, os.Getenv, s.ErrOut); err != nil {
		return err
	}
	log := fac.Logger(cfg, "tui", faceopts.NoStderr)
	hostOptions := app.Options{Config: cfg, Originator: Originator, BypassHookTrust: o.BypassHookTrust}
	a, err := fac.Host(hostOptions)
	if app.NeedsSignIn(cfg, err) {
		// No credentials: the sign-in screen, then the host again with what it stored.
		if err := signIn(ctx, cfg, s); err != nil {
			return err
		}
		a, err = fac.Host(hostOptions)
	}
	if err != nil {
		log.Error("start", "err", err)
		return err
	}
	th, err := a.StartThread(ctx, app.ThreadOptions{Source: "cli", Resume: o.Resume})
	if err != nil {
		return err
	}
	if o.Worktree != nil {
		if err := o.Worktree.RecordOwner(th.ID()); err != nil {
			warningLines = append(warningLines, "could not record the worktree's thread: "+err.Error())
		}
	}
	cmds, notices := app.CustomCommands(cfg)
	notices = append(notices, o.PickerNotices...)
	return Run(ctx, withSessions(Options{
		ResumePicker: o.ResumePicker,
		ForkPicker:   o.ForkPicker,
		Engine:       th,
		Header: Header{
			Version:  version.Version,
			Model:    cfg.Model,
			Cwd:      cfg.Cwd,
			Approval: cfg.ApprovalPolicy.String(),
			Sandbox:  string(cfg.SandboxPolicy.Mode),
		},
		Prompt:      o.Prompt,
		Images:      o.Flags.Images,
		In:          s.In,
		Out:         s.Out,
		Env:         os.Environ(),
		Commands:    cmds,
		ThreadID:    th.ID(),
		Notices:     append(warningLines, notices...),
		RewindFiles: rewinder(cfg.CodexHome, th.ID(), cfg.Cwd),
		UI:          uiHost(a, cfg, o.BypassHookTrust),
	}, a, cfg, o.NoAltScreen))
}

func signIn(ctx context.Context, cfg *config.Config, s *iostreams.IOStreams) error {
	si, err := app.NewSignIn(cfg, Originator, os.Getenv)
	if err != nil {
		return err
	}
	return SignIn(ctx, SignInOptions{
		SignIn: si, In: s.In, Out: s.Out,
		AllowChatGPT: cfg.ForcedLoginMethod != "api", AllowAPIKey: cfg.ForcedLoginMethod != "chatgpt",
	})
}

// CheckImages refuses an -i/--image file that cannot be read before the UI starts, rather
// than sending the model a note that it is missing. Relative paths are the thread's (-C).
func CheckImages(cwd string, paths []string) error {
	for _, p := range paths {
		full := p
		if !filepath.IsAbs(full) {
			full = filepath.Join(cwd, full)
		}
		info, err := os.Stat(full)
		if err == nil && !info.Mode().IsRegular() {
			err = errors.New("not a regular file")
		}
		if err != nil {
			return fmt.Errorf("cannot attach image %s: %w", p, err)
		}
	}
	return nil
}

// askTrust shows the first-run trust screen when the working directory is in a Git
// repository whose trust config.toml does not decide, as Codex does, and saves a "trusted"
// answer for the repository root (comments and the rest of the file kept; written
// atomically). It reports whether it saved one; leaving the screen is an error.
func askTrust(ctx context.Context, cfg *config.Config, s *iostreams.IOStreams) (bool, error) {
	if cfg.TrustLevel != "" || !faceopts.InGitRepo(cfg.Cwd) || !s.IsStdinTerminal() {
		return false, nil
	}
	root := cfg.TrustRoot // the repository's root (a linked worktree's main checkout), as Codex saves it
	if root == "" {
		root = cfg.Cwd
	}
	if err := AskTrust(ctx, TrustOptions{Cwd: cfg.Cwd, Root: root, In: s.In, Out: s.Out, Env: os.Environ()}); err != nil {
		return false, err
	}
	path := filepath.Join(cfg.CodexHome, "config.toml")
	if err := config.EditFile(path, config.Set([]string{"projects", root, "trust_level"}, config.TrustTrusted)); err != nil {
		return false, fmt.Errorf("save the folder's trust: %w", err)
	}
	return true, nil
}
