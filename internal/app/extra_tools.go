package app

import "github.com/gocodex/gocodex/internal/tools"

// addExtraHandlers adds the tools that need no per-thread wiring.
func addExtraHandlers(h map[string]tools.Handler) {}
