// Package wires links every model wire into the build: importing it (for its side effect)
// registers each wire's descriptor with internal/model, which validation, the host's client
// factory, `gocodex models`, doctor and the capability checks read. A new wire is one more
// import line here (docs/architecture.md, "A new model wire").
package wires

import (
	// The Responses wire is internal/model's own and registers itself there.
	_ "github.com/gocodex/gocodex/internal/model/anthropic"
	_ "github.com/gocodex/gocodex/internal/model/chat"
)
