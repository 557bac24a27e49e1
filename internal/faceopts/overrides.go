package faceopts

import (
	"maps"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/protocol"
)

// ThreadOverrides are the settings a request may change for one thread on top of the
// process's configuration sources: the app-server's thread/start, resume and fork, and the
// mcp-server's codex tool. A nil field keeps what the sources say.
type ThreadOverrides struct {
	Cwd                   *string
	Profile               *string
	Model                 *string
	ModelProvider         *string
	ApprovalPolicy        *protocol.AskForApproval
	SandboxMode           *protocol.SandboxMode
	BaseInstructions      *string
	DeveloperInstructions *string
	CompactPrompt         *string
	// Config holds dotted-key values, applied after (and winning over) the process's -c
	// overrides.
	Config map[string]any
}

// Apply returns base with the overrides laid on top; base is not modified.
func (t ThreadOverrides) Apply(base config.LoadOptions) config.LoadOptions {
	lo := base
	if t.Cwd != nil && *t.Cwd != "" {
		lo.Cwd = *t.Cwd
	}
	if t.Profile != nil && *t.Profile != "" {
		lo.Profile = *t.Profile
	}
	if len(t.Config) > 0 {
		merged := make(map[string]any, len(base.ValueOverrides)+len(t.Config))
		maps.Copy(merged, base.ValueOverrides)
		maps.Copy(merged, t.Config)
		lo.ValueOverrides = merged
	}
	o := base.Overrides
	setIf(&o.Model, t.Model)
	setIf(&o.ModelProvider, t.ModelProvider)
	setIf(&o.ApprovalPolicy, t.ApprovalPolicy)
	setIf(&o.SandboxMode, t.SandboxMode)
	setIf(&o.BaseInstructions, t.BaseInstructions)
	setIf(&o.DeveloperInstructions, t.DeveloperInstructions)
	setIf(&o.CompactPrompt, t.CompactPrompt)
	lo.Overrides = o
	return lo
}

func setIf[T any](dst **T, v *T) {
	if v != nil {
		*dst = v
	}
}
