package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/auth"
	"github.com/gocodex/gocodex/internal/cli"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/iostreams"
	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/rollout"
	"github.com/gocodex/gocodex/internal/snapshot"
	"github.com/gocodex/gocodex/internal/tui"
	"github.com/gocodex/gocodex/internal/version"
	"github.com/gocodex/gocodex/protocol"
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
	faceopts.Cd | faceopts.Profile | faceopts.FullAuto | faceopts.Bypass | faceopts.AddDir | faceopts.OSS | faceopts.Images

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

func runTUI(ctx context.Context, opts tuiOptions, s *iostreams.IOStreams) error {
	if err := opts.Extras.check(); err != nil {
		return err
	}
	// Without a terminal there is nobody to type or approve; say so before starting a
	// thread (Codex refuses the same way). A resume looks its session up first, so that a
	// wrong id is named as such wherever the command runs.
	if opts.Resume == nil && !faceopts.IsTerminal(s.In) {
		return errors.New("stdin is not a terminal")
	}
	cfg, warnings, err := loadTUIConfig(opts, os.Getenv)
	if err != nil {
		return err
	}
	if opts.Extras.StrictConfig {
		if err := strictConfigError(warnings); err != nil {
			return err
		}
	}
	var resumed *rollout.Rollout
	var openPicker bool
	var pickerNotices []string
	if opts.Resume != nil {
		id, err := cli.FindForUI(cfg, *opts.Resume)
		// A resume or fork without a session, or of one that does not exist, opens the picker
		// at a terminal (with the reason for an unknown one), as Codex does.
		if faceopts.IsTerminal(s.In) && (errors.Is(err, cli.ErrNoPicker) || errors.Is(err, cli.ErrUnknownSession)) {
			openPicker = true
			if errors.Is(err, cli.ErrUnknownSession) {
				pickerNotices = append(pickerNotices, err.Error())
			}
			err, id = nil, ""
		} else if errors.Is(err, cli.ErrNoPicker) {
			return exitWith(cli.PrintSessionList(cfg, *opts.Resume, s.Out, s.ErrOut))
		}
		if err != nil {
			return err
		}
		// Checked before a fork writes its copy: nothing is left behind by a refusal.
		if !faceopts.IsTerminal(s.In) {
			return errors.New("stdin is not a terminal")
		}
		if id != "" {
			if resumed, err = cli.OpenForUI(cfg, *opts.Resume, id); err != nil {
				return err
			}
		}
	}
	if err := checkImages(cfg.Cwd, opts.Flags.Images); err != nil {
		return err
	}
	if trusted, err := askTrust(ctx, cfg, s); err != nil {
		return err
	} else if trusted {
		// Trust changes the defaults and loads the project's own config: load again.
		if cfg, warnings, err = loadTUIConfig(opts, os.Getenv); err != nil {
			return err
		}
	}
	// The configuration warnings are warning lines of the transcript (Notices), once the UI is up.
	var warningLines []string
	for _, w := range warnings {
		warningLines = append(warningLines, w.String())
	}
	if err := opts.Flags.PrepareOSS(ctx, cfg, os.Getenv, s.ErrOut); err != nil {
		return err
	}
	log := faceopts.OpenLog(cfg, "tui", s.ErrOut, faceopts.NoStderr)
	defer log.Close()
	a, err := app.New(app.Options{Config: cfg, Originator: "codex_cli_rs", Logger: log.Logger(), BypassHookTrust: opts.BypassHookTrust})
	if needsSignIn(cfg, err) {
		// No credentials: the sign-in screen, then the app again with what it stored.
		if err := signIn(ctx, cfg, s); err != nil {
			return err
		}
		a, err = app.New(app.Options{Config: cfg, Originator: "codex_cli_rs", Logger: log.Logger(), BypassHookTrust: opts.BypassHookTrust})
	}
	if err != nil {
		log.Logger().Error("start", "err", err)
		return err
	}
	defer a.Close(context.WithoutCancel(ctx))
	th, err := a.StartThread(ctx, app.ThreadOptions{Source: "cli", Resume: resumed})
	if err != nil {
		return err
	}
	cmds, notices := app.CustomCommands(cfg)
	notices = append(notices, pickerNotices...)
	return tui.Run(ctx, withSessions(tui.Options{
		ResumePicker: openPicker,
		ForkPicker:   openPicker && opts.Resume.Fork,
		Engine:       th,
		Header: tui.Header{
			Version:  version.Version,
			Model:    cfg.Model,
			Cwd:      cfg.Cwd,
			Approval: cfg.ApprovalPolicy.String(),
			Sandbox:  string(cfg.SandboxPolicy.Mode),
		},
		Prompt:   opts.Prompt,
		Images:   opts.Flags.Images,
		In:       s.In,
		Out:      s.Out,
		Env:      os.Environ(),
		Commands: cmds,
		ThreadID: th.ID(),
		Notices:  append(warningLines, notices...),
		RewindFiles: func(ctx context.Context, n int) (*snapshot.Plan, error) {
			return app.RewindFiles(ctx, cfg.CodexHome, th.ID(), cfg.Cwd, n, false)
		},
	}, a, cfg, opts.NoAltScreen))
}

// loadTUIConfig applies the flags over config.toml. Where neither chose a sandbox, a git
// work tree gets workspace-write: the person is at the keyboard to approve what leaves it.
func loadTUIConfig(opts tuiOptions, getenv func(string) string) (*config.Config, []config.Warning, error) {
	lo, err := opts.Flags.LoadOptions(getenv, faceopts.FullAutoAsksOnRequest)
	if err != nil {
		return nil, nil, err
	}
	if opts.Search {
		lo.CLIOverrides = append(lo.CLIOverrides, `web_search="live"`)
	}
	cfg, warnings, err := faceopts.Load(lo)
	if err != nil {
		return nil, nil, err
	}
	if lo.Overrides.SandboxMode == nil && !faceopts.SandboxChosen(cfg) && cfg.TrustLevel == "" && faceopts.InGitRepo(cfg.Cwd) {
		cfg.SandboxPolicy = protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite}
	}
	return cfg, warnings, nil
}

// needsSignIn says whether app.New failed only for want of OpenAI credentials.
func needsSignIn(cfg *config.Config, err error) bool {
	var missing *model.EnvVarError
	return err != nil && cfg.ModelProvider.RequiresOpenAIAuth && cfg.ModelProvider.EnvKey == "" &&
		errors.As(err, &missing) && missing.Var == "OPENAI_API_KEY"
}

func signIn(ctx context.Context, cfg *config.Config, s *iostreams.IOStreams) error {
	mode, err := auth.ParseStoreMode(cfg.CLIAuthCredentialsStore)
	if err != nil {
		return err
	}
	httpClient, err := auth.HTTPClient(os.Getenv)
	if err != nil {
		return err
	}
	lo := auth.LoginOptions{Originator: "codex_cli_rs", HTTP: httpClient, Issuer: os.Getenv("GOCODEX_LOGIN_ISSUER")}
	if v := os.Getenv("GOCODEX_LOGIN_PORT"); v != "" {
		lo.Port, _ = strconv.Atoi(v)
	}
	return tui.SignIn(ctx, tui.SignInOptions{
		Store: auth.NewStore(cfg.CodexHome, mode, nil), Login: lo, In: s.In, Out: s.Out,
		AllowChatGPT: cfg.ForcedLoginMethod != "api", AllowAPIKey: cfg.ForcedLoginMethod != "chatgpt",
	})
}

// checkImages refuses an -i/--image file that cannot be read before the UI starts, rather
// than sending the model a note that it is missing. Relative paths are the thread's (-C).
func checkImages(cwd string, paths []string) error {
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
	if cfg.TrustLevel != "" || !faceopts.InGitRepo(cfg.Cwd) || !faceopts.IsTerminal(s.In) {
		return false, nil
	}
	root := cfg.TrustRoot // the repository's root (a linked worktree's main checkout), as Codex saves it
	if root == "" {
		root = cfg.Cwd
	}
	if err := tui.AskTrust(ctx, tui.TrustOptions{Cwd: cfg.Cwd, Root: root, In: s.In, Out: s.Out, Env: os.Environ()}); err != nil {
		return false, err
	}
	path := filepath.Join(cfg.CodexHome, "config.toml")
	if err := config.EditFile(path, config.Set([]string{"projects", root, "trust_level"}, config.TrustTrusted)); err != nil {
		return false, fmt.Errorf("save the folder's trust: %w", err)
	}
	return true, nil
}
