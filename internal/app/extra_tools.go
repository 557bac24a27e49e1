package app

import (
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/internal/tools/plan"
	"github.com/gocodex/gocodex/internal/tools/userinput"
	"github.com/gocodex/gocodex/internal/tools/viewimage"
	"github.com/gocodex/gocodex/tool"
)

// addExtraHandlers adds the tools that need no per-thread wiring.
func addExtraHandlers(h map[string]tool.Handler, cfg *config.Config) {
	h[tools.NameUpdatePlan] = plan.New()
	h[tools.NameViewImage] = viewimage.New(viewimage.Options{})
	h[tools.NameRequestUserInput] = userinput.New(userinput.Options{
		DefaultMode: cfg.FeatureEnabled("default_mode_request_user_input", false),
	})
}
