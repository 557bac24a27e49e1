package model_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/model"
)

// TestCatalogMatchesCodex checks our table against the capability facts of Codex 0.169's
// bundled catalog (testdata/codex_catalog_0.169.json).
func TestCatalogMatchesCodex(t *testing.T) {
	data, err := os.ReadFile("testdata/codex_catalog_0.169.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Models []struct {
			Slug                          string   `json:"slug"`
			DisplayName                   string   `json:"display_name"`
			Visibility                    string   `json:"visibility"`
			Priority                      int      `json:"priority"`
			ContextWindow                 int64    `json:"context_window"`
			MaxContextWindow              int64    `json:"max_context_window"`
			EffectiveContextWindowPercent int64    `json:"effective_context_window_percent"`
			ShellType                     string   `json:"shell_type"`
			ApplyPatchToolType            string   `json:"apply_patch_tool_type"`
			DefaultReasoningLevel         string   `json:"default_reasoning_level"`
			DefaultReasoningSummary       string   `json:"default_reasoning_summary"`
			SupportedReasoningLevels      []string `json:"supported_reasoning_levels"`
			InputModalities               []string `json:"input_modalities"`
			SupportVerbosity              bool     `json:"support_verbosity"`
			DefaultVerbosity              string   `json:"default_verbosity"`
			WebSearchToolType             string   `json:"web_search_tool_type"`
			SupportsSearchTool            bool     `json:"supports_search_tool"`
			ToolMode                      string   `json:"tool_mode"`
			TruncationPolicy              struct {
				Mode  string `json:"mode"`
				Limit int64  `json:"limit"`
			} `json:"truncation_policy"`
		} `json:"models"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	var slugs []string
	for _, r := range ref.Models {
		slugs = append(slugs, r.Slug)
		got := model.LookupModel(r.Slug, model.CatalogOverrides{})
		want := model.ModelInfo{
			Slug: r.Slug, DisplayName: r.DisplayName, Visibility: r.Visibility, Priority: r.Priority,
			ContextWindow: r.ContextWindow, MaxContextWindow: r.MaxContextWindow,
			EffectiveContextWindowPercent: r.EffectiveContextWindowPercent,
			AutoCompactTokenLimit:         r.ContextWindow * 9 / 10,
			ShellType:                     r.ShellType, ApplyPatchToolType: r.ApplyPatchToolType,
			SupportsParallelToolCalls: true, SupportsReasoningSummaries: true,
			DefaultReasoningLevel: r.DefaultReasoningLevel, DefaultReasoningSummary: r.DefaultReasoningSummary,
			SupportedReasoningLevels: r.SupportedReasoningLevels, SupportVerbosity: r.SupportVerbosity,
			DefaultVerbosity: r.DefaultVerbosity,
			TruncationPolicy: model.TruncationPolicy{Mode: r.TruncationPolicy.Mode, Limit: r.TruncationPolicy.Limit},
			InputModalities:  r.InputModalities, WebSearchToolType: r.WebSearchToolType,
			SupportsSearchTool: r.SupportsSearchTool, ToolMode: r.ToolMode, Known: true,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-codex +ours):\n%s", r.Slug, diff)
		}
	}
	if diff := cmp.Diff(slugs, model.CatalogSlugs()); diff != "" {
		t.Errorf("slugs (-codex +ours):\n%s", diff)
	}
}

func TestListedModels(t *testing.T) {
	var got []string
	for _, m := range model.ListedModels() {
		got = append(got, m.Slug)
	}
	want := []string{"gpt-6.1-sol", "gpt-6-astra", "gpt-6-sol", "gpt-6-luna", "gpt-5.6-sol", "gpt-6.1-terra", "gpt-5.6-terra", "gpt-5.6-luna", "gpt-5.5"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

func TestLookupModel(t *testing.T) {
	i := func(v int64) *int64 { return &v }
	tests := []struct {
		name string
		slug string
		o    model.CatalogOverrides
		want func(model.ModelInfo) any
		exp  any
	}{
		{"unknown slug falls back", "my-local-model", model.CatalogOverrides{},
			func(m model.ModelInfo) any {
				return []any{m.Known, m.ShellType, m.ApplyPatchToolType, m.TruncationPolicy, m.ContextWindow, m.SupportsParallelToolCalls}
			},
			[]any{false, "default", "", model.TruncationPolicy{Mode: "bytes", Limit: 10000}, int64(272000), false}},
		{"dated snapshot matches its family", "gpt-5.5-2026-01-01", model.CatalogOverrides{},
			func(m model.ModelInfo) any { return []any{m.Known, m.Slug, m.ShellType} },
			[]any{true, "gpt-5.5-2026-01-01", "unified_exec"}},
		{"a longer name is not a prefix match without a dash", "gpt-5.50", model.CatalogOverrides{},
			func(m model.ModelInfo) any { return m.Known }, false},
		{"effective window", "gpt-5.5", model.CatalogOverrides{},
			func(m model.ModelInfo) any { return m.EffectiveContextWindow() }, int64(258400)},
		{"auto compact is 90% by default", "gpt-5.5", model.CatalogOverrides{},
			func(m model.ModelInfo) any { return m.AutoCompactTokenLimit }, int64(244800)},
		{"auto compact config below 90% wins", "gpt-5.5", model.CatalogOverrides{AutoCompactTokenLimit: i(100000)},
			func(m model.ModelInfo) any { return m.AutoCompactTokenLimit }, int64(100000)},
		{"auto compact config above 90% is capped", "gpt-5.5", model.CatalogOverrides{AutoCompactTokenLimit: i(900000)},
			func(m model.ModelInfo) any { return m.AutoCompactTokenLimit }, int64(244800)},
		{"context window override moves the cap", "gpt-5.5", model.CatalogOverrides{ContextWindow: i(100000), AutoCompactTokenLimit: i(95000)},
			func(m model.ModelInfo) any { return []int64{m.ContextWindow, m.AutoCompactTokenLimit} }, []int64{100000, 90000}},
		{"tool output limit in tokens mode", "gpt-5.5", model.CatalogOverrides{ToolOutputTokenLimit: i(2000)},
			func(m model.ModelInfo) any { return m.TruncationPolicy }, model.TruncationPolicy{Mode: "tokens", Limit: 2000}},
		{"tool output limit in bytes mode", "other", model.CatalogOverrides{ToolOutputTokenLimit: i(2000)},
			func(m model.ModelInfo) any { return m.TruncationPolicy }, model.TruncationPolicy{Mode: "bytes", Limit: 8000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.exp, tt.want(model.LookupModel(tt.slug, tt.o))); diff != "" {
				t.Error(diff)
			}
		})
	}
}
