package execcli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/gocodex/gocodex/internal/gitmarker"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/rollout"
	"github.com/gocodex/gocodex/internal/version"
	"github.com/gocodex/gocodex/protocol"
)

// Streams are the process's standard streams.
type Streams struct {
	In          io.Reader
	Out, ErrOut io.Writer
}

// Originator is what Codex's exec face calls itself in the originator header.
const Originator = "codex_exec"

const notTrusted = "Not inside a trusted directory and --skip-git-repo-check was not specified."

// Run is `gocodex exec`: one turn on a new (or resumed) thread, its events written as JSONL or
// for a person. It returns the process exit status: 0 on success, 1 on failure with the
// reason on stderr.
func Run(ctx context.Context, opts RunOptions, s Streams) int {
	if err := run(ctx, opts, s); err != nil {
		var exit exitStatus
		if errors.As(err, &exit) {
			return int(exit)
		}
		fmt.Fprintf(s.ErrOut, "Error: %v\n", err)
		return 1
	}
	return 0
}

// exitStatus ends the run with a status after the reason was already printed.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func run(ctx context.Context, opts RunOptions, s Streams) error {
	if err := checkArgs(opts, s); err != nil {
		return err
	}
	cfg, warnings, err := loadConfig(opts)
	if err != nil {
		return err
	}
	if !opts.SkipGitRepo && !trusted(cfg) {
		fmt.Fprintln(s.ErrOut, notTrusted)
		return exitStatus(1)
	}
	prompt, err := readPrompt(opts, s)
	if err != nil {
		return err
	}
	var schema json.RawMessage
	if opts.OutputSchema != "" {
		if schema, err = readSchema(opts.OutputSchema); err != nil {
			return err
		}
	}
	a, err := app.New(app.Options{Config: cfg, Originator: Originator, IgnoreRules: opts.IgnoreRules})
	if err != nil {
		return err
	}
	defer a.Close(context.WithoutCancel(ctx))

	w := newWriter(opts, s, cfg, prompt)
	for _, warn := range warnings {
		fmt.Fprintf(s.ErrOut, "warning: %s\n", warn)
	}
	to := app.ThreadOptions{OutputSchema: schema, Ephemeral: opts.Ephemeral, Source: "exec"}
	if opts.Resume {
		if to.Resume, err = findResume(cfg, opts); err != nil {
			return err
		}
	}
	th, err := a.StartThread(ctx, to)
	if err != nil {
		return err
	}
	items := []protocol.InputItem{protocol.TextInput(prompt)}
	for _, img := range opts.Images {
		items = append(items, protocol.InputItem{Type: protocol.InputLocalImage, Path: img})
	}
	if err := protocol.CheckUserInputSize(items); err != nil {
		// Codex starts the thread before it refuses the turn: thread.started comes first.
		if ev, nerr := th.NextEvent(ctx); nerr == nil {
			_ = w.Handle(ev)
		}
		return err
	}
	if _, err := th.Submit(protocol.UserInputOp{Items: items, FinalOutputJSONSchema: schema}); err != nil {
		return err
	}
	if err := pump(ctx, th, w); err != nil {
		return err
	}
	if opts.OutputLast != "" {
		if err := WriteLastMessage(opts.OutputLast, w); err != nil {
			fmt.Fprintf(s.ErrOut, "Error: write %s: %v\n", opts.OutputLast, err)
		}
	}
	if w.TurnFailed() {
		return exitStatus(1)
	}
	return nil
}

// findResume reads the rollout `exec resume` continues: the thread named by id, or with
// --last the most recently updated one of this directory and model provider (any with
// --all). --last with
// nothing to resume starts a new thread, as Codex does.
func findResume(cfg *config.Config, opts RunOptions) (*rollout.Rollout, error) {
	var path string
	switch {
	case opts.ResumeID != "":
		p, archived, err := rollout.Find(cfg.CodexHome, opts.ResumeID)
		if err != nil {
			return nil, err
		}
		if archived {
			// An archived thread is out of the way until it is unarchived, as in Codex.
			return nil, fmt.Errorf("%w for thread id %s (it is archived)", rollout.ErrNotFound, opts.ResumeID)
		}
		path = p
	case opts.ResumeLast:
		lo := rollout.ListOptions{}
		if !opts.ResumeAll {
			lo.Cwd, lo.Providers = cfg.Cwd, []string{cfg.ModelProviderID}
		}
		s, err := rollout.Latest(cfg.CodexHome, lo)
		if errors.Is(err, rollout.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		path = s.Path
	default:
		return nil, errors.New("exec resume: give a session id or --last")
	}
	return rollout.Load(cfg.CodexHome, path)
}

// pump feeds the thread's events to the writer until the turn ends, then shuts the thread
// down and drains what is left. A cancelled ctx (Ctrl-C) interrupts the turn first.
func pump(ctx context.Context, th *agent.Thread, w Writer) error {
	drain := context.WithoutCancel(ctx)
	interrupted, shuttingDown := false, false
	for {
		if ctx.Err() != nil && !interrupted {
			interrupted = true
			_, _ = th.Submit(protocol.InterruptOp{})
		}
		evCtx := ctx
		if interrupted || shuttingDown {
			evCtx = drain
		}
		ev, err := th.NextEvent(evCtx)
		if errors.Is(err, context.Canceled) && ctx.Err() != nil && !interrupted {
			continue // interrupt on the next pass
		}
		if errors.Is(err, agent.ErrThreadClosed) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := w.Handle(ev); err != nil {
			return err
		}
		switch ev.Msg.(type) {
		case protocol.TurnCompleteEvent, *protocol.TurnCompleteEvent, protocol.TurnAbortedEvent, *protocol.TurnAbortedEvent:
			if !shuttingDown {
				shuttingDown = true
				_, _ = th.Submit(protocol.ShutdownOp{})
			}
		case protocol.ShutdownCompleteEvent, *protocol.ShutdownCompleteEvent:
			return nil
		}
	}
}

func loadConfig(opts RunOptions) (*config.Config, []config.Warning, error) {
	lo := config.LoadOptions{
		Cwd:              opts.Cd,
		Profile:          opts.Profile,
		CLIOverrides:     append([]string(nil), opts.Configs...),
		IgnoreUserConfig: opts.IgnoreUserConfig,
	}
	for _, f := range opts.Enable {
		lo.CLIOverrides = append(lo.CLIOverrides, "features."+f+"=true")
	}
	for _, f := range opts.Disable {
		lo.CLIOverrides = append(lo.CLIOverrides, "features."+f+"=false")
	}
	ov := &lo.Overrides
	if opts.Model != "" {
		ov.Model = &opts.Model
	}
	ov.OSS, ov.LocalProvider = opts.OSS, opts.LocalProvider
	ov.AdditionalWritableRoots = opts.AddDirs
	switch {
	case opts.Bypass:
		mode, never := protocol.SandboxDangerFullAccess, protocol.ApprovalNever
		ov.SandboxMode, ov.ApprovalPolicy = &mode, &never
	case opts.FullAuto:
		mode := protocol.SandboxWorkspaceWrite
		ov.SandboxMode = &mode
	case opts.Sandbox != "":
		mode, err := SandboxFlag(opts.Sandbox)
		if err != nil {
			return nil, nil, err
		}
		ov.SandboxMode = &mode
	}
	cfg, warnings, err := config.Load(lo)
	if err != nil {
		return nil, nil, err
	}
	// Headless runs have nobody to ask: exec never prompts unless the user chose a policy.
	if ov.ApprovalPolicy == nil && !approvalChosen(cfg) {
		cfg.ApprovalPolicy = protocol.ApprovalNever
	}
	return cfg, warnings, nil
}

func approvalChosen(cfg *config.Config) bool {
	_, ok := cfg.Effective["approval_policy"]
	return ok
}

// trusted reports whether exec may run here: inside a git work tree or a trusted project.
func trusted(cfg *config.Config) bool {
	if cfg.TrustLevel == "trusted" {
		return true
	}
	for dir := cfg.Cwd; ; dir = filepath.Dir(dir) {
		if gitmarker.Exists(os.Stat, dir, ".git") {
			return true
		}
		if parent := filepath.Dir(dir); parent == dir {
			return false
		}
	}
}

// readPrompt takes the prompt from the argument or stdin; with both, stdin is appended as a
// <stdin> block, as Codex does.
func readPrompt(opts RunOptions, s Streams) (string, error) {
	if !opts.HasPrompt || opts.Prompt == "-" {
		if isTerminal(s.In) {
			return "", errors.New("no prompt provided: pass one as an argument or pipe it into stdin")
		}
		data, err := io.ReadAll(s.In)
		if err != nil {
			return "", fmt.Errorf("read prompt from stdin: %w", err)
		}
		if err := checkStdinUTF8(data, s); err != nil {
			return "", err
		}
		if strings.TrimSpace(string(data)) == "" {
			return "", errors.New("no prompt provided via stdin")
		}
		return string(data), nil
	}
	if s.In == nil || isTerminal(s.In) {
		return opts.Prompt, nil
	}
	data, err := io.ReadAll(s.In)
	if err != nil {
		return "", fmt.Errorf("read stdin: %w", err)
	}
	if err := checkStdinUTF8(data, s); err != nil {
		return "", err
	}
	if strings.TrimSpace(string(data)) == "" {
		return opts.Prompt, nil
	}
	return opts.Prompt + "\n\n<stdin>\n" + strings.TrimRight(string(data), "\n") + "\n</stdin>", nil
}

func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

func readSchema(path string) (json.RawMessage, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read output schema: %w", err)
	}
	if !json.Valid(data) {
		return nil, fmt.Errorf("output schema %s is not valid JSON", path)
	}
	return json.RawMessage(data), nil
}

func newWriter(opts RunOptions, s Streams, cfg *config.Config, prompt string) Writer {
	if opts.JSON {
		return NewJSONWriter(s.Out)
	}
	effort := cfg.ReasoningEffort
	if effort == "" {
		effort = "none"
	}
	summary := cfg.ReasoningSummary
	if summary == "" {
		summary = "none"
	}
	return NewHumanWriter(HumanOptions{
		Stdout: s.Out,
		Stderr: s.ErrOut,
		Color:  opts.Color == "always",
		Title:  "gocodex v" + version.Version + " (Codex " + version.CodexProtocol + " protocol)",
		Summary: []SummaryEntry{
			{"workdir", cfg.Cwd},
			{"model", cfg.Model},
			{"provider", cfg.ModelProviderID},
			{"approval", cfg.ApprovalPolicy.String()},
			{"sandbox", string(cfg.SandboxPolicy.EffectiveMode())},
			{"reasoning effort", effort},
			{"reasoning summaries", summary},
		},
		Prompt:               prompt,
		FinalMessageToStdout: !isTerminal(s.Out),
	})
}
