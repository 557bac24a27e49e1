package proto

import (
	"context"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/iostreams"
)

// Serve starts the thread to (a new one, or the one to.Resume continues) on the process's
// host and speaks the protocol with it over s until it shuts down.
func Serve(ctx context.Context, host *app.App, to app.ThreadOptions, s *iostreams.IOStreams) error {
	th, err := host.StartThread(ctx, to)
	if err != nil {
		return err
	}
	return Run(ctx, th, s.In, s.Out, s.ErrOut)
}
