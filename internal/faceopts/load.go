package faceopts

import (
	"fmt"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/protocol"
)

// Load is the one configuration load on every face's path at start-up; per-thread
// overrides are loaded by the host (app-server's thread/start, mcp-server's codex tool).
// A model the bundled catalog does not know adds a warning: it runs with default metadata.
func Load(lo config.LoadOptions) (*config.Config, []config.Warning, error) {
	cfg, warnings, err := config.Load(lo)
	if err != nil {
		return cfg, warnings, err
	}
	if w, ok := UnknownModelWarning(cfg); ok {
		warnings = append(warnings, w)
	}
	if w, ok := WebSearchWireWarning(cfg); ok {
		warnings = append(warnings, w)
	}
	warnings = append(warnings, FeatureWarnings(cfg)...)
	return cfg, dedupeWarnings(warnings), nil
}

// WebSearchWireWarning says web search is off when the user asked for it on a wire that has
// no provider-run search (Chat Completions, Anthropic): the tool is not sent there.
func WebSearchWireWarning(cfg *config.Config) (config.Warning, bool) {
	_, asked := cfg.Effective["web_search"]
	if !asked || cfg.WebSearchMode == "disabled" || cfg.ModelProvider.Capabilities().HostedWebSearch {
		return config.Warning{}, false
	}
	return config.Warning{Key: []string{"web_search"}, Message: fmt.Sprintf(
		"web_search = %q has no effect with model provider %q: its wire (%s) has no web search tool",
		cfg.WebSearchMode, cfg.ModelProviderID, cfg.ModelProvider.Wire())}, true
}

// UnknownModelWarning is the warning for a model the catalog does not know, unless the
// configuration gives its window itself.
func UnknownModelWarning(cfg *config.Config) (config.Warning, bool) {
	if cfg.Model == "" || cfg.ModelContextWindow != nil || model.LookupModel(cfg.Model, model.CatalogOverrides{}).Known {
		return config.Warning{}, false
	}
	info := model.LookupModel(cfg.Model, model.CatalogOverrides{})
	return config.Warning{Key: []string{"model"}, Message: fmt.Sprintf(
		"model `%s` is not in the bundled catalog: it runs with default metadata (a %d-token context window); set model_context_window if that is wrong",
		cfg.Model, info.ContextWindow)}, true
}

// NeverAskUnlessChosen makes a headless face's configuration never ask for approval (it has
// nobody to ask), unless the flags (lo) or the configuration chose a policy.
func NeverAskUnlessChosen(lo config.LoadOptions, cfg *config.Config) {
	if lo.Overrides.ApprovalPolicy == nil && !ApprovalChosen(cfg) {
		cfg.ApprovalPolicy = protocol.ApprovalNever
	}
}

// TrustedToRun reports whether a face that runs unattended may run in the configuration's
// directory: a trusted project, or inside a git work tree.
func TrustedToRun(cfg *config.Config) bool {
	return cfg.TrustLevel == "trusted" || InGitRepo(cfg.Cwd)
}

// SandboxChosen reports whether the configuration (not a default) chose the sandbox.
func SandboxChosen(cfg *config.Config) bool {
	_, ok := cfg.Effective["sandbox_mode"]
	return ok
}

// ApprovalChosen reports whether the configuration (not a default) chose the approval policy.
func ApprovalChosen(cfg *config.Config) bool {
	_, ok := cfg.Effective["approval_policy"]
	return ok
}
