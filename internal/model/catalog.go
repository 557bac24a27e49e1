package model

import (
	"slices"
	"strings"
)

// Shell tool kinds a model is offered (ModelInfo.ShellType).
const (
	ShellDefault      = "default"       // the argv `shell` tool
	ShellLocal        = "local"         // the built-in local_shell tool
	ShellUnifiedExec  = "unified_exec"  // exec_command / write_stdin
	ShellDisabled     = "disabled"      // no shell tool
	ShellShellCommand = "shell_command" // the string `shell_command` tool
)

// apply_patch tool kinds (ModelInfo.ApplyPatchToolType; "" means no apply_patch tool).
const (
	ApplyPatchFreeform = "freeform"
	ApplyPatchFunction = "function"
)

// TruncationPolicy bounds a tool output sent to the model: Limit bytes, or Limit tokens
// (approximated as bytes/4).
type TruncationPolicy struct {
	Mode  string // "bytes" or "tokens"
	Limit int64
}

// ModelInfo is what the engine and the tools need to know about a model.
type ModelInfo struct {
	Slug string
	// DisplayName, Visibility ("list" or "hide") and Priority (lower first) drive model
	// pickers and model/list.
	DisplayName string
	Visibility  string
	Priority    int
	// ContextWindow is the model's window in tokens; EffectiveContextWindowPercent of it is
	// usable (see EffectiveContextWindow).
	ContextWindow                 int64
	MaxContextWindow              int64
	EffectiveContextWindowPercent int64
	// AutoCompactTokenLimit is the resolved limit (see LookupModel).
	AutoCompactTokenLimit int64
	ShellType             string
	ApplyPatchToolType    string
	// SupportsParallelToolCalls is sent as `parallel_tool_calls`.
	SupportsParallelToolCalls bool
	// SupportsReasoningSummaries decides whether `reasoning` is sent.
	SupportsReasoningSummaries bool
	DefaultReasoningLevel      string
	DefaultReasoningSummary    string
	SupportedReasoningLevels   []string
	SupportVerbosity           bool
	DefaultVerbosity           string
	TruncationPolicy           TruncationPolicy
	InputModalities            []string
	WebSearchToolType          string
	SupportsSearchTool         bool
	// ToolMode is "code_mode_only" for models that get tools through code mode, else "".
	ToolMode string
	// Known is false for the fallback used for slugs the catalog does not list.
	Known bool
}

// EffectiveContextWindow is the part of the window Codex lets the conversation use (reported
// as model_context_window in token_count).
func (m ModelInfo) EffectiveContextWindow() int64 {
	if m.EffectiveContextWindowPercent <= 0 {
		return m.ContextWindow
	}
	return m.ContextWindow * m.EffectiveContextWindowPercent / 100
}

// CatalogOverrides are the config.toml keys that change a model's metadata.
type CatalogOverrides struct {
	// ContextWindow is model_context_window.
	ContextWindow *int64
	// AutoCompactTokenLimit is model_auto_compact_token_limit.
	AutoCompactTokenLimit *int64
	// ToolOutputTokenLimit is tool_output_token_limit (replaces the truncation limit).
	ToolOutputTokenLimit *int64
}

// catalogEntry is one row of our table; fields left zero take the family defaults below.
type catalogEntry struct {
	slug           string
	name           string
	hidden         bool
	priority       int
	window, maxWin int64
	reasoning      string // default reasoning level
	levels         []string
	verbosity      string // default verbosity
	codeModeOnly   bool
}

var (
	levelsFull  = []string{"low", "medium", "high", "xhigh", "max", "ultra"}
	levelsMax   = []string{"low", "medium", "high", "xhigh", "max"}
	levelsXHigh = []string{"low", "medium", "high", "xhigh"}
)

// catalog holds the models Codex 0.169 ships with. Every current model shares the same tool
// surface (unified exec, freeform apply_patch, token truncation at 10 000, 95% effective
// window), so only what differs is listed per row.
var catalog = []catalogEntry{
	{slug: "gpt-6-astra", name: "GPT-6-Astra", priority: 2, window: 272000, maxWin: 872000, reasoning: "low", levels: levelsFull, verbosity: "low", codeModeOnly: true},
	{slug: "gpt-6.1-sol", name: "GPT-6.1-Sol", priority: 1, window: 272000, maxWin: 872000, reasoning: "low", levels: levelsFull, verbosity: "low", codeModeOnly: true},
	{slug: "gpt-6.1-terra", name: "GPT-6.1 Terra", priority: 7, window: 500000, maxWin: 872000, reasoning: "low", levels: levelsFull, verbosity: "low", codeModeOnly: true},
	{slug: "gpt-6-sol", name: "GPT-6-Sol", priority: 3, window: 272000, maxWin: 872000, reasoning: "medium", levels: levelsFull, verbosity: "low", codeModeOnly: true},
	{slug: "gpt-6-luna", name: "GPT-6-Luna", priority: 4, window: 272000, maxWin: 872000, reasoning: "medium", levels: levelsMax, verbosity: "low", codeModeOnly: true},
	{slug: "gpt-5.6-sol", name: "GPT-5.6-Sol", priority: 5, window: 272000, maxWin: 872000, reasoning: "low", levels: levelsFull, verbosity: "low", codeModeOnly: true},
	{slug: "gpt-5.6-terra", name: "GPT-5.6-Terra", priority: 8, window: 272000, maxWin: 872000, reasoning: "medium", levels: levelsFull, verbosity: "low", codeModeOnly: true},
	{slug: "gpt-5.6-luna", name: "GPT-5.6-Luna", priority: 9, window: 272000, maxWin: 872000, reasoning: "medium", levels: levelsMax, verbosity: "low", codeModeOnly: true},
	{slug: "gpt-daybreak-blue-latest", name: "Daybreak Blue", hidden: true, priority: 11, window: 272000, maxWin: 872000, reasoning: "low", levels: levelsFull, verbosity: "low", codeModeOnly: true},
	{slug: "gpt-daybreak-red-latest", name: "Daybreak Red", hidden: true, priority: 12, window: 372000, maxWin: 372000, reasoning: "medium", levels: levelsFull, verbosity: "high", codeModeOnly: true},
	{slug: "gpt-5.5", name: "GPT-5.5", priority: 13, window: 272000, maxWin: 272000, reasoning: "medium", levels: levelsXHigh, verbosity: "low"},
	{slug: "codex-auto-review", name: "Codex Auto Review", hidden: true, priority: 43, window: 272000, maxWin: 872000, reasoning: "medium", levels: levelsMax, verbosity: "low", codeModeOnly: true},
}

// Fallback values for slugs the catalog does not know (Codex's offline fallback).
const (
	fallbackContextWindow = 272000
	fallbackTruncateBytes = 10000
	catalogTruncateTokens = 10000
	effectiveWindowPct    = 95
)

func (e catalogEntry) info() ModelInfo {
	vis := "list"
	if e.hidden {
		vis = "hide"
	}
	m := ModelInfo{
		Slug:                          e.slug,
		DisplayName:                   e.name,
		Visibility:                    vis,
		Priority:                      e.priority,
		ContextWindow:                 e.window,
		MaxContextWindow:              e.maxWin,
		EffectiveContextWindowPercent: effectiveWindowPct,
		ShellType:                     ShellUnifiedExec,
		ApplyPatchToolType:            ApplyPatchFreeform,
		SupportsParallelToolCalls:     true,
		SupportsReasoningSummaries:    true,
		DefaultReasoningLevel:         e.reasoning,
		DefaultReasoningSummary:       "none",
		SupportedReasoningLevels:      slices.Clone(e.levels),
		SupportVerbosity:              true,
		DefaultVerbosity:              e.verbosity,
		TruncationPolicy:              TruncationPolicy{Mode: "tokens", Limit: catalogTruncateTokens},
		InputModalities:               []string{"text", "image"},
		WebSearchToolType:             "text_and_image",
		SupportsSearchTool:            true,
		Known:                         true,
	}
	if e.codeModeOnly {
		m.ToolMode = "code_mode_only"
	}
	return m
}

// fallbackInfo is the metadata of an unknown slug: the argv shell tool, no apply_patch tool,
// 10 000-byte truncation, a 272 000-token window.
func fallbackInfo(slug string) ModelInfo {
	return ModelInfo{
		Slug:                          slug,
		ContextWindow:                 fallbackContextWindow,
		MaxContextWindow:              fallbackContextWindow,
		EffectiveContextWindowPercent: effectiveWindowPct,
		ShellType:                     ShellDefault,
		TruncationPolicy:              TruncationPolicy{Mode: "bytes", Limit: fallbackTruncateBytes},
		InputModalities:               []string{"text", "image"},
	}
}

// LookupModel returns the metadata for slug: the catalog row whose slug equals it or is its
// longest prefix (dated snapshots like "gpt-5.5-2026-01-01"), else the fallback; then the
// config overrides. The auto-compact limit is min(model_auto_compact_token_limit, 90% of the
// context window).
func LookupModel(slug string, o CatalogOverrides) ModelInfo {
	m := fallbackInfo(slug)
	best := -1
	for i, e := range catalog {
		if slug == e.slug {
			best = i
			break
		}
		if strings.HasPrefix(slug, e.slug+"-") && (best < 0 || len(e.slug) > len(catalog[best].slug)) {
			best = i
		}
	}
	if best >= 0 {
		m = catalog[best].info()
		m.Slug = slug
	}
	if o.ContextWindow != nil && *o.ContextWindow > 0 {
		m.ContextWindow = *o.ContextWindow
	}
	m.AutoCompactTokenLimit = m.ContextWindow * 9 / 10
	if o.AutoCompactTokenLimit != nil && *o.AutoCompactTokenLimit > 0 {
		m.AutoCompactTokenLimit = min(*o.AutoCompactTokenLimit, m.AutoCompactTokenLimit)
	}
	if o.ToolOutputTokenLimit != nil && *o.ToolOutputTokenLimit > 0 {
		limit := *o.ToolOutputTokenLimit
		if m.TruncationPolicy.Mode == "bytes" {
			limit *= 4 // the config value is in tokens; bytes mode approximates 4 bytes a token
		}
		m.TruncationPolicy.Limit = limit
	}
	return m
}

// ListedModels returns the models a picker shows (visibility "list"), by priority.
func ListedModels() []ModelInfo {
	var out []ModelInfo
	for _, e := range catalog {
		if !e.hidden {
			out = append(out, LookupModel(e.slug, CatalogOverrides{}))
		}
	}
	slices.SortStableFunc(out, func(a, b ModelInfo) int { return a.Priority - b.Priority })
	return out
}

// CatalogModels are every model of the catalog, hidden ones included, by priority (model/list
// leaves the hidden out unless asked).
func CatalogModels() []ModelInfo {
	out := make([]ModelInfo, 0, len(catalog))
	for _, e := range catalog {
		out = append(out, LookupModel(e.slug, CatalogOverrides{}))
	}
	slices.SortStableFunc(out, func(a, b ModelInfo) int { return a.Priority - b.Priority })
	return out
}

// CatalogSlugs lists the models the catalog knows, in table order.
func CatalogSlugs() []string {
	out := make([]string, len(catalog))
	for i, e := range catalog {
		out[i] = e.slug
	}
	return out
}
