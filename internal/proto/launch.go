package proto

import (
	"context"
	"fmt"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/faceopts"
)

// LaunchOptions are what the proto command hands the face.
type LaunchOptions struct {
	// Flags are the command's flags, laid over config.toml by the host.
	Flags     faceopts.Flags
	Ephemeral bool
	// Resume continues the recorded thread with this id; Fork starts a new thread from a copy
	// of one, without its last ForkDropTurns user turns. Neither starts a new thread.
	Resume        string
	Fork          string
	ForkDropTurns int
}

// Launch runs `gocodex proto` over the process's stdio on the factory's host: one thread
// (new, resumed or forked) speaking the protocol until it shuts down.
func Launch(ctx context.Context, fac *faceopts.Factory, o LaunchOptions) error {
	s := fac.IO
	lo, err := o.Flags.LoadOptions(nil, faceopts.FullAutoSandboxOnly)
	if err != nil {
		return err
	}
	if o.Resume != "" && o.Fork != "" {
		return fmt.Errorf("--resume and --fork cannot be used together")
	}
	cfg, warnings, err := fac.Config(lo)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		s.ErrOut.Write([]byte("warning: " + w.String() + "\n"))
	}
	log := fac.Logger(cfg, "proto", faceopts.NoStderr)
	host, err := fac.Host(app.Options{Config: cfg})
	if err != nil {
		log.Error("start", "err", err)
		return err
	}
	to := app.ThreadOptions{Ephemeral: o.Ephemeral}
	if to.Resume, err = app.OpenRollout(cfg, app.Open{ResumeID: o.Resume, ForkID: o.Fork, ForkDropTurns: o.ForkDropTurns}); err != nil {
		return err
	}
	th, err := host.StartThread(ctx, to)
	if err != nil {
		return err
	}
	return Run(ctx, th, s.In, s.Out, s.ErrOut)
}
