package faceopts

import (
	"context"
	"io"

	"github.com/gocodex/gocodex/internal/auth"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/model/oss"
)

// PrepareOSS readies the local model server an --oss session uses (see oss.EnsureReady),
// writing progress to progress. It does nothing without --oss.
func (o Flags) PrepareOSS(ctx context.Context, cfg *config.Config, getenv func(string) string, progress io.Writer) error {
	if !o.OSS {
		return nil
	}
	hc, err := auth.HTTPClient(getenv)
	if err != nil {
		return err
	}
	return oss.EnsureReady(ctx, cfg.ModelProviderID, cfg.ModelProvider, cfg.Model, progress, hc)
}
