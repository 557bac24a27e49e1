package main

import (
	"context"
	"errors"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gocodex/gocodex/internal/cli"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/host/worktree"
	"github.com/gocodex/gocodex/internal/tui"
)

// tuiOptions are the flags of the interactive `gocodex [PROMPT]`.
type tuiOptions struct {
	faceopts.Flags
	Prompt string
	// Search is --search: live web search (web_search = "live"), as Codex's root command has.
	Search bool
	// BypassHookTrust is --dangerously-bypass-hook-trust: hooks run without being trusted.
	BypassHookTrust bool
	// Extras are Codex's other interactive flags (see interactiveExtras).
	Extras interactiveExtras
	// Resume, when set, opens a saved thread (gocodex resume / fork) instead of a new one.
	Resume *cli.ResumeRequest
	// NoAltScreen is --no-alt-screen: inline even where tui.alternate_screen asks otherwise.
	NoAltScreen bool
}

// tuiFlags are the shared flags the interactive UI offers.
const tuiFlags = faceopts.Model | faceopts.Config | faceopts.Features | faceopts.Sandbox | faceopts.Approval |
	faceopts.Cd | faceopts.Profile | faceopts.FullAuto | faceopts.Bypass | faceopts.AddDir | faceopts.OSS | faceopts.Images | faceopts.StrictConfig

// tuiRunner is the behaviour behind the root command; flag tests pass their own.
type tuiRunner func(ctx context.Context, opts tuiOptions, fac *faceopts.Factory) error

// addTUIFlags makes the root command the interactive UI, as `codex` with no subcommand is.
func addTUIFlags(root *cobra.Command, fac *faceopts.Factory, run tuiRunner) {
	s := fac.IO
	var opts tuiOptions
	root.Use = "gocodex [PROMPT]"
	root.Args = func(cmd *cobra.Command, args []string) error {
		if err := checkMistypedSubcommand(cmd, args, s); err != nil {
			return err
		}
		return cobra.MaximumNArgs(1)(cmd, args)
	}
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 1 {
			opts.Prompt = args[0]
		}
		return run(cmd.Context(), opts, fac)
	}
	opts.registerFlags(root.Flags())
}

// registerFlags binds the interactive UI's flags (the root command's, resume's and fork's).
func (opts *tuiOptions) registerFlags(f *pflag.FlagSet) {
	opts.Flags.Register(f, tuiFlags)
	f.BoolVar(&opts.Search, "search", false, "enable live web search (web_search = \"live\")")
	f.BoolVar(&opts.BypassHookTrust, "dangerously-bypass-hook-trust", false, "run lifecycle hooks that are not trusted, without review")
	f.BoolVar(&opts.NoAltScreen, "no-alt-screen", false, "disable alternate screen mode (inline, the default, keeps the terminal's scrollback)")
	opts.Extras.register(f)
}

func runTUI(ctx context.Context, opts tuiOptions, fac *faceopts.Factory) error {
	s := fac.IO
	if err := opts.Extras.check(opts.Resume != nil); err != nil {
		return err
	}
	// Without a terminal there is nobody to type or approve; say so before starting a
	// thread (Codex refuses the same way). A resume looks its session up first, so that a
	// wrong id is named as such wherever the command runs.
	lo, flagsErr := tuiLoadOptions(opts, os.Getenv)
	if opts.Flags.StrictConfig && opts.Resume == nil {
		// Codex refuses the configuration before anything else, terminal or not.
		if flagsErr != nil {
			return flagsErr
		}
		if _, _, err := tui.LoadConfig(fac, lo); err != nil {
			return err
		}
	}
	if opts.Resume == nil && !s.IsStdinTerminal() {
		return errors.New("stdin is not a terminal")
	}
	if flagsErr != nil {
		return flagsErr
	}
	var managed *worktree.Managed
	if opts.Extras.Worktree {
		// The session starts in a new worktree of the repository: -C, or this folder, maps
		// to the same folder there (as `exec --worktree`).
		var err error
		if managed, err = worktree.ForSession(ctx, opts.Flags.Cd); err != nil {
			return err
		}
		opts.Flags.Cd = managed.Cwd
		if lo, err = tuiLoadOptions(opts, os.Getenv); err != nil {
			return err
		}
	}
	cfg, warnings, err := tui.LoadConfig(fac, lo)
	if err != nil {
		return err
	}
	launch := tui.LaunchOptions{Load: lo, Config: cfg, Warnings: warnings, Flags: opts.Flags, Prompt: opts.Prompt,
		NoAltScreen: opts.NoAltScreen, BypassHookTrust: opts.BypassHookTrust, Worktree: managed}
	if opts.Resume != nil {
		id, err := cli.FindForUI(cfg, *opts.Resume)
		// A resume or fork without a session, or of one that does not exist, opens the picker
		// at a terminal (with the reason for an unknown one), as Codex does.
		if s.IsStdinTerminal() && (errors.Is(err, cli.ErrNoPicker) || errors.Is(err, cli.ErrUnknownSession)) {
			launch.ResumePicker, launch.ForkPicker = true, opts.Resume.Fork
			if errors.Is(err, cli.ErrUnknownSession) {
				launch.PickerNotices = append(launch.PickerNotices, err.Error())
			}
			err, id = nil, ""
		} else if errors.Is(err, cli.ErrNoPicker) {
			return exitWith(cli.PrintSessionList(cfg, *opts.Resume, s.Out, s.ErrOut))
		}
		if err != nil {
			return err
		}
		// Checked before a fork writes its copy: nothing is left behind by a refusal.
		if !s.IsStdinTerminal() {
			return errors.New("stdin is not a terminal")
		}
		if id != "" {
			if launch.Resume, err = cli.OpenForUI(cfg, *opts.Resume, id); err != nil {
				return err
			}
		}
	}
	return tui.Launch(ctx, fac, launch)
}

// tuiLoadOptions are the interactive flags as configuration load options.
func tuiLoadOptions(opts tuiOptions, getenv func(string) string) (config.LoadOptions, error) {
	lo, err := opts.Flags.LoadOptions(getenv, faceopts.FullAutoAsksOnRequest)
	if err != nil {
		return lo, err
	}
	if opts.Search {
		lo.CLIOverrides = append(lo.CLIOverrides, `web_search="live"`)
	}
	return lo, nil
}
