package execcli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/iostreams"
	"github.com/gocodex/gocodex/internal/version"
	"github.com/gocodex/gocodex/protocol"
)

// Originator is what Codex's exec face calls itself in the originator header.
const Originator = "codex_exec"

const notTrusted = "Not inside a trusted directory and --skip-git-repo-check was not specified."

// Run is `gocodex exec`: one turn on a new (or resumed) thread, its events written as JSONL or
// for a person. It returns the process exit status: 0 on success, 1 on failure with the
// reason on stderr.
func Run(ctx context.Context, fac *faceopts.Factory, opts RunOptions) int {
	s := fac.IO
	if err := run(ctx, fac, opts); err != nil {
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

func run(ctx context.Context, fac *faceopts.Factory, opts RunOptions) error {
	s := fac.IO
	if err := checkArgs(opts, s); err != nil {
		return err
	}
	managed, err := managedWorktree(ctx, &opts)
	if err != nil {
		return err
	}
	lo, err := opts.Flags.LoadOptions(nil, faceopts.FullAutoSandboxOnly)
	if err != nil {
		return err
	}
	cfg, warnings, err := fac.Config(lo)
	if err != nil {
		return err
	}
	faceopts.NeverAskUnlessChosen(lo, cfg) // a headless run has nobody to ask
	if !opts.SkipGitRepo && !faceopts.TrustedToRun(cfg) {
		fmt.Fprintln(s.ErrOut, notTrusted)
		return exitStatus(1)
	}
	if err := opts.Flags.PrepareOSS(ctx, cfg, os.Getenv, s.ErrOut); err != nil {
		return err
	}
	var reviewReq *protocol.ReviewRequest
	var prompt string
	if opts.Review != nil {
		if reviewReq, err = reviewRequest(ctx, opts, s, cfg.Cwd); err != nil {
			return err
		}
		prompt = reviewReq.UserFacingHint
	} else {
		if prompt, err = readPrompt(opts, s); err != nil {
			return err
		}
		// A custom command given as the prompt (`gocodex exec "/name args"`) runs as the
		// host expands it; any other prompt, an unknown /word included, goes as typed.
		expanded, cmdWarnings, err := app.ExpandCustomCommand(cfg, prompt)
		for _, w := range cmdWarnings {
			fmt.Fprintf(s.ErrOut, "warning: %s\n", w)
		}
		if err != nil {
			return err
		}
		prompt = expanded
	}
	var schema json.RawMessage
	if opts.OutputSchema != "" {
		if schema, err = readSchema(opts.OutputSchema); err != nil {
			return err
		}
	}
	log := fac.Logger(cfg, "exec", faceopts.NoStderr)
	a, err := fac.Host(app.Options{Config: cfg, Originator: Originator, IgnoreRules: opts.IgnoreRules, BypassHookTrust: opts.BypassHookTrust})
	if err != nil {
		log.Error("start", "err", err)
		return err
	}

	w := newWriter(opts, s, a, prompt)
	for _, warn := range warnings {
		fmt.Fprintf(s.ErrOut, "warning: %s\n", warn)
	}
	to := app.ThreadOptions{OutputSchema: schema, Ephemeral: opts.Ephemeral, Source: "exec"}
	if opts.Resume {
		open, err := resumeTarget(opts)
		if err != nil {
			return err
		}
		if to.Resume, err = app.OpenRollout(cfg, open); err != nil {
			return err
		}
	}
	th, err := a.StartThread(ctx, to)
	if err != nil {
		log.Error("start thread", "err", err)
		return err
	}
	if managed != nil {
		if err := managed.RecordOwner(th.ID()); err != nil {
			fmt.Fprintf(s.ErrOut, "warning: could not record the worktree's thread: %v\n", err)
		}
	}
	items := append(protocol.LocalImageInputs(opts.Images), protocol.TextInput(prompt))
	if reviewReq != nil {
		if _, err := th.Submit(protocol.ReviewOp{ReviewRequest: *reviewReq}); err != nil {
			return err
		}
		return finish(ctx, opts, s, th, w, log)
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
	return finish(ctx, opts, s, th, w, log)
}

// finish follows the submitted turn to its end and writes what the flags ask for.
func finish(ctx context.Context, opts RunOptions, s *iostreams.IOStreams, th app.Thread, w Writer, log *slog.Logger) error {
	if err := pump(ctx, th, w); err != nil {
		log.Error("turn", "thread", th.ID(), "err", err)
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

// resumeTarget is the rollout `exec resume` continues: the thread named by id, or with
// --last the most recently updated one of this directory and model provider (any with
// --all). --last with nothing to resume starts a new thread, as Codex does.
func resumeTarget(opts RunOptions) (app.Open, error) {
	if opts.ForkID != "" {
		return app.Open{ForkID: opts.ForkID}, nil
	}
	if opts.ResumeID == "" && !opts.ResumeLast {
		return app.Open{}, errors.New("exec resume: give a session id or --last")
	}
	return app.Open{ResumeID: opts.ResumeID, ResumeLast: opts.ResumeLast, AllDirectories: opts.ResumeAll}, nil
}

// pump feeds the thread's events to the writer until the turn ends, then shuts the thread
// down and drains what is left. A cancelled ctx (Ctrl-C) interrupts the turn first.
func pump(ctx context.Context, th app.Thread, w Writer) error {
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
		if errors.Is(err, app.ErrThreadClosed) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := w.Handle(ev); err != nil {
			return err
		}
		switch m := ev.Msg.(type) {
		case protocol.RequestUserInputEvent:
			if err := answerNoUser(th, m); err != nil {
				return err
			}
		case protocol.ExecApprovalRequestEvent, protocol.ApplyPatchApprovalRequestEvent:
			if err := denyNoUser(th, m); err != nil {
				return err
			}
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

// readPrompt takes the prompt from the argument or stdin; with both, stdin is appended as a
// <stdin> block, as Codex does.
func readPrompt(opts RunOptions, s *iostreams.IOStreams) (string, error) {
	if !opts.HasPrompt || opts.Prompt == "-" {
		if s.IsStdinTerminal() {
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
	if s.In == nil || s.IsStdinTerminal() {
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

// newWriter is the writer the flags ask for; the human one opens with the settings of the
// host's configuration.
func newWriter(opts RunOptions, s *iostreams.IOStreams, host *app.App, prompt string) Writer {
	if opts.JSON {
		return NewJSONWriter(s.Out)
	}
	cfg := host.Config()
	effort := cfg.ReasoningEffort
	if effort == "" {
		effort = "none"
	}
	summary := cfg.ReasoningSummary
	if summary == "" {
		summary = "none"
	}
	return NewHumanWriter(HumanOptions{
		Stdout:        s.Out,
		Stderr:        s.ErrOut,
		Color:         s.ColorStderr(opts.Color),
		Title:         "gocodex v" + version.Version + " (Codex " + version.CodexProtocol + " protocol)",
		SubagentUsage: host.Subagents().Usage,
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
		FinalMessageToStdout: !s.IsStdoutTerminal(),
	})
}
