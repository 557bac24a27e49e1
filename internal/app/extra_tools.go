package app

import (
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/internal/tools/plan"
	"github.com/gocodex/gocodex/internal/tools/viewimage"
)

// addExtraHandlers adds the tools that need no per-thread wiring.
func addExtraHandlers(h map[string]tools.Handler) {
	h[tools.NameUpdatePlan] = plan.New()
	h[tools.NameViewImage] = viewimage.New(viewimage.Options{})
}
