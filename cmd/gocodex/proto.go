package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/proto"
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
	return proto.Launch(ctx, fac, proto.LaunchOptions{Flags: opts.Flags, Ephemeral: opts.Ephemeral,
		Resume: opts.Resume, Fork: opts.Fork, ForkDropTurns: opts.ForkDropTurns})
}
