package main

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/proto"
	"github.com/gocodex/gocodex/internal/rollout"
)

// protoOptions are the flags of `gocodex proto`.
type protoOptions struct {
	Configs   []string
	Model     string
	Profile   string
	Cd        string
	Ephemeral bool
	// Resume continues a recorded thread; Fork starts a new thread from a copy of one,
	// without its last ForkDropTurns user turns.
	Resume        string
	Fork          string
	ForkDropTurns int
}

func newProtoCommand(s streams) *cobra.Command {
	var opts protoOptions
	cmd := &cobra.Command{
		Use:   "proto",
		Short: "Speak the raw protocol: Submission JSONL on stdin, Event JSONL on stdout",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runProto(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringArrayVarP(&opts.Configs, "config", "c", nil, "override a configuration value (key=value)")
	cmd.Flags().StringVarP(&opts.Model, "model", "m", "", "model the agent should use")
	cmd.Flags().StringVarP(&opts.Profile, "profile", "p", "", "configuration profile")
	cmd.Flags().StringVarP(&opts.Cd, "cd", "C", "", "working directory")
	cmd.Flags().BoolVar(&opts.Ephemeral, "ephemeral", false, "do not persist the session to disk")
	cmd.Flags().StringVar(&opts.Resume, "resume", "", "continue the recorded thread with this id")
	cmd.Flags().StringVar(&opts.Fork, "fork", "", "start a new thread from a copy of the recorded thread with this id")
	cmd.Flags().IntVar(&opts.ForkDropTurns, "fork-drop-turns", 0, "with --fork, leave out the source's last N user turns")
	return cmd
}

func runProto(ctx context.Context, opts protoOptions, s streams) error {
	lo := config.LoadOptions{Cwd: opts.Cd, Profile: opts.Profile, CLIOverrides: opts.Configs}
	if opts.Model != "" {
		lo.Overrides.Model = &opts.Model
	}
	cfg, warnings, err := config.Load(lo)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		s.ErrOut.Write([]byte("warning: " + w.String() + "\n"))
	}
	a, err := app.New(app.Options{Config: cfg})
	if err != nil {
		return err
	}
	defer a.Close(context.WithoutCancel(ctx))
	to := app.ThreadOptions{Ephemeral: opts.Ephemeral}
	if to.Resume, err = protoResume(cfg.CodexHome, opts); err != nil {
		return err
	}
	th, err := a.StartThread(ctx, to)
	if err != nil {
		return err
	}
	return proto.Run(ctx, th, s.In, s.Out, s.ErrOut)
}

// protoResume reads the rollout --resume continues, or writes the copy --fork starts from.
func protoResume(codexHome string, opts protoOptions) (*rollout.Rollout, error) {
	if opts.Resume != "" && opts.Fork != "" {
		return nil, fmt.Errorf("--resume and --fork cannot be used together")
	}
	id := opts.Resume
	if id == "" {
		id = opts.Fork
	}
	if id == "" {
		return nil, nil
	}
	path, _, err := rollout.Find(codexHome, id)
	if err != nil {
		return nil, err
	}
	src, err := rollout.Load(codexHome, path)
	if err != nil || opts.Fork == "" {
		return src, err
	}
	newID, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	forked, err := rollout.Fork(codexHome, src, rollout.ForkOptions{NewID: newID.String(), DropLastTurns: opts.ForkDropTurns})
	if err != nil {
		return nil, err
	}
	return rollout.Load(codexHome, forked)
}
