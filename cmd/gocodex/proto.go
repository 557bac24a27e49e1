package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/proto"
	"github.com/gocodex/gocodex/internal/rollout"
)

// protoOptions are the flags of `gocodex proto`.
type protoOptions struct {
	faceopts.Flags
	Ephemeral bool
	// Resume continues a recorded thread; Fork starts a new thread from a copy of one,
	// without its last ForkDropTurns user turns.
	Resume        string
	Fork          string
	ForkDropTurns int
}

func newProtoCommand(fac *faceopts.Factory) *cobra.Command {
	var opts protoOptions
	cmd := &cobra.Command{
		Use:   "proto",
		Short: "Speak the raw protocol: Submission JSONL on stdin, Event JSONL on stdout",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runProto(cmd.Context(), opts, fac)
		},
	}
	opts.Flags.Register(cmd.Flags(), faceopts.Config|faceopts.Model|faceopts.Profile|faceopts.Cd)
	cmd.Flags().BoolVar(&opts.Ephemeral, "ephemeral", false, "do not persist the session to disk")
	cmd.Flags().StringVar(&opts.Resume, "resume", "", "continue the recorded thread with this id")
	cmd.Flags().StringVar(&opts.Fork, "fork", "", "start a new thread from a copy of the recorded thread with this id")
	cmd.Flags().IntVar(&opts.ForkDropTurns, "fork-drop-turns", 0, "with --fork, leave out the source's last N user turns")
	return cmd
}

func runProto(ctx context.Context, opts protoOptions, fac *faceopts.Factory) error {
	s := fac.IO
	lo, err := opts.Flags.LoadOptions(nil, faceopts.FullAutoSandboxOnly)
	if err != nil {
		return err
	}
	cfg, warnings, err := fac.Config(lo)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		s.ErrOut.Write([]byte("warning: " + w.String() + "\n"))
	}
	log := fac.Logger(cfg, "proto", faceopts.NoStderr)
	a, err := fac.Host(app.Options{Config: cfg})
	if err != nil {
		log.Error("start", "err", err)
		return err
	}
	to := app.ThreadOptions{Ephemeral: opts.Ephemeral}
	if to.Resume, err = protoResume(cfg, opts); err != nil {
		return err
	}
	return proto.Serve(ctx, a, to, s)
}

// protoResume reads the rollout --resume continues, or writes the copy --fork starts from.
func protoResume(cfg *config.Config, opts protoOptions) (*rollout.Rollout, error) {
	if opts.Resume != "" && opts.Fork != "" {
		return nil, fmt.Errorf("--resume and --fork cannot be used together")
	}
	return app.OpenRollout(cfg, app.Open{ResumeID: opts.Resume, ForkID: opts.Fork, ForkDropTurns: opts.ForkDropTurns})
}
