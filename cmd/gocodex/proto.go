package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/proto"
)

// protoOptions are the flags of `gocodex proto`.
type protoOptions struct {
	Configs []string
	Model   string
	Profile string
	Cd      string
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
	th, err := a.StartThread(ctx, app.ThreadOptions{})
	if err != nil {
		return err
	}
	return proto.Run(ctx, th, s.In, s.Out, s.ErrOut)
}
