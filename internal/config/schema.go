package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/gocodex/gocodex/internal/features"
	"github.com/gocodex/gocodex/internal/model"
)

// codexOnlyKeys are top-level keys Codex 0.169 understands (its app-server
// config/read lists them all) that gocodex does not act on. Users share
// config.toml with Codex, so they are not errors, but each one set gives a
// warning saying gocodex does not support it (see unsupportedKeyWarning).
var codexOnlyKeys = map[string]bool{
	"analytics": true, "approvals_reviewer": true, "apps": true, "audio": true,
	"background_terminal_max_timeout": true, "commit_attribution": true, "default_permissions": true, "disable_paste_burst": true,
	"experimental_realtime_ws_base_url": true, "experimental_resume": true, "experimental_use_exec_command_tool": true,
	"feedback": true, "ghost_snapshot": true,
	"js_repl_node_path": true,
	"memories":          true, "model_catalog_json": true, "model_max_output_tokens": true,
	"model_reasoning_summary_format": true, "notice": true, "otel": true, "permission_profile": true,
	"permissions": true, "personality": true, "plugins": true, "preferred_auth_method": true, "realtime": true,
	"responses_originator_header_internal_override": true, "review": true, "sandbox": true,
	"windows": true, "zsh_path": true, "marketplaces": true, "experimental_thread_store_endpoint": true,
	"model_post_turn_compact_threshold_percent": true, "goals": true,
	"web_search_mode": true, "chatgpt_auth": true, "instructions_file": true, "browser_use": true,
	"client_search_provider": true, "computer_use": true, "desktop": true, "model_auto_compact_token_limit_scope": true,
	// The rest of the keys Codex 0.169's config/read lists.
	"allow_symlinked_codex_home": true, "apps_mcp_product_sku": true, "auto_review": true, "cloud": true,
	"daybreak": true, "experimental_realtime_start_instructions": true,
	"experimental_realtime_webrtc_call_base_url": true, "experimental_realtime_ws_backend_prompt": true,
	"experimental_realtime_ws_model": true, "experimental_realtime_ws_startup_context": true,
	"experimental_thread_store": true, "include_apps_instructions": true,
	"include_collaboration_mode_instructions": true, "include_environment_context": true,
	"include_environment_context_time": true, "include_permissions_instructions": true,
	"js_repl_node_module_dirs": true, "mcp_enterprise_managed_auth": true, "mcp_oauth_callback_url": true,
	"orchestrator": true, "plan_mode_reasoning_effort": true,
	"responses_api_metadata": true, "tool_suggest": true,
}

// readElsewhere are Codex keys outside the File schema that another package reads from
// Config.Effective (or owns: hooks and skills have their own loaders): known, and acted on.
var readElsewhere = map[string]bool{
	"thread_unload_delay_secs": true, "mcp_optional_startup_grace_ms": true,
	"hooks": true, "skills": true, "agents": true,
}

// ignoredFileKeys are keys the File schema decodes (older Codex configs hold them) but
// nothing acts on: they are reported as not supported like codexOnlyKeys.
var ignoredFileKeys = map[string]bool{
	"experimental_use_unified_exec_tool": true, "experimental_use_freeform_apply_patch": true,
	"include_apply_patch_tool": true, "model_supports_reasoning_summaries": true,
	"disable_response_storage": true, "suppress_unstable_features_warning": true,
	"windows_wsl_setup_acknowledged": true, "experimental_use_rmcp_client": true,
	"experimental_sandbox_command_assessment": true,
	"code_mode": true, "rollout_trace": true,
}

// defaultOnlyKeys are File keys nothing acts on whose default is what gocodex does anyway
// (it never checks for updates, always shows reasoning summaries as they come): only another
// value is reported as not supported.
var defaultOnlyKeys = map[string]any{
	"check_for_update_on_startup": false, "hide_agent_reasoning": false, "show_raw_agent_reasoning": false,
	"file_opener": "vscode", "sqlite_home": nil,
}

// ignoredUnlessDefault reports a defaultOnlyKeys key set to something else than its default.
func ignoredUnlessDefault(k string, v any) bool {
	def, ok := defaultOnlyKeys[k]
	return ok && (def == nil || v != def)
}

// streamingResponses reports a `[responses]` table that asks only for the streaming mode.
func streamingResponses(v any) bool {
	tbl, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for k, val := range tbl {
		if k != "process_mode" || val != "streaming" {
			return false
		}
	}
	return true
}

// openTables are known tables whose contents are free-form (or Codex's to
// check): nothing under them gives a warning.
var openTables = map[string]bool{"auth": true}

// keyKind is what the schema walk found at a key path.
type keyKind int

const (
	keyUnknown     keyKind = iota // neither gocodex nor Codex 0.169 has it
	keyUnsupported                // Codex has it, gocodex does not act on it
)

type keyFinding struct {
	path []string
	kind keyKind
}

// checkKeys lists, sorted, the key paths of a layer that are unknown or that gocodex does not
// support.
func checkKeys(data map[string]any) []keyFinding {
	var out []keyFinding
	walkSchema(reflect.TypeOf(File{}), data, nil, &out)
	sort.Slice(out, func(i, j int) bool {
		return strings.Join(out[i].path, "\x00") < strings.Join(out[j].path, "\x00")
	})
	return out
}

var (
	providerType = reflect.TypeOf(model.ProviderInfo{})
	mcpType      = reflect.TypeOf(McpServerConfig{})
	fileType     = reflect.TypeOf(File{})
)

func walkSchema(t reflect.Type, data map[string]any, path []string, out *[]keyFinding) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Map:
		for k, v := range data {
			if sub, ok := v.(map[string]any); ok {
				walkSchema(t.Elem(), sub, appendPath(path, k), out)
			}
		}
		return
	case reflect.Struct:
	default:
		return
	}
	fields := tomlFields(t)
	for k, v := range data {
		p := appendPath(path, k)
		ft, ok := fields[k]
		topLevel := t == fileType
		switch {
		case topLevel && k == "tui":
			// The terminal UI reads the tuiKeysRead keys; Codex's other [tui] keys
			// (notifications, animations, ...) are named one by one.
			if tbl, isTable := v.(map[string]any); isTable {
				for sub := range tbl {
					if !tuiKeysRead[sub] {
						*out = append(*out, keyFinding{append(append([]string(nil), p...), sub), keyUnsupported})
					}
				}
			} else {
				*out = append(*out, keyFinding{p, keyUnsupported})
			}
			continue
		case topLevel && readElsewhere[k]:
			continue
		case topLevel && k == "lsp":
			checkLspKeys(v, p, out)
			continue
		case topLevel && k == "responses":
			// gocodex processes every response as it streams: only another mode is reported.
			if !streamingResponses(v) {
				*out = append(*out, keyFinding{p, keyUnsupported})
			}
			continue
		case topLevel && (codexOnlyKeys[k] || ignoredFileKeys[k] || ignoredUnlessDefault(k, v)):
			*out = append(*out, keyFinding{p, keyUnsupported})
			continue
		case t == providerType && (k == "auth" || k == "aws" || (k == "supports_websockets" && v != false)):
			// Codex's command-sourced provider token, Bedrock signing and Responses over
			// websockets: gocodex has none of them.
			*out = append(*out, keyFinding{p, keyUnsupported})
			continue
		case ok:
		default:
			*out = append(*out, keyFinding{p, keyUnknown})
			continue
		}
		if topLevel && k == "features" {
			if sub, isTable := v.(map[string]any); isTable {
				for name := range sub {
					if !features.KnownKey(name) {
						*out = append(*out, keyFinding{appendPath(p, name), keyUnknown})
					}
				}
			}
			continue
		}
		if openTables[k] && (topLevel || t == mcpType) {
			continue
		}
		if sub, isTable := v.(map[string]any); isTable {
			walkSchema(ft, sub, p, out)
		}
	}
}

// tomlFields maps toml tag names to field types.
func tomlFields(t reflect.Type) map[string]reflect.Type {
	m := make(map[string]reflect.Type, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if name == "" || name == "-" {
			continue
		}
		m[name] = f.Type
	}
	return m
}

func unknownKeyWarning(file string, src []byte, key []string) Warning {
	w := Warning{File: file, Key: key, Unknown: true}
	what := "key"
	if len(key) > 0 {
		switch key[0] {
		case "mcp_servers":
			what = "MCP server setting"
		case "model_providers":
			what = "model provider setting"
		}
	}
	w.Message = fmt.Sprintf("unknown %s `%s` ignored (gocodex does not know it)", what, strings.Join(key, "."))
	if near := closestKey(key); near != "" {
		w.Message += fmt.Sprintf("; did you mean `%s`?", near)
	}
	if src != nil {
		if line, col, ok := locate(src, key); ok {
			w.Line, w.Column = line, col
		}
	}
	return w
}

// pruneUnknown returns a copy of data holding only the keys the schema type
// t spells exactly; free-form parts (any, map values of any) are kept whole.
func pruneUnknown(t reflect.Type, data map[string]any) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	out := make(map[string]any, len(data))
	switch t.Kind() {
	case reflect.Map:
		for k, v := range data {
			out[k] = pruneValue(t.Elem(), v)
		}
	case reflect.Struct:
		fields := tomlFields(t)
		for k, v := range data {
			if ft, ok := fields[k]; ok {
				out[k] = pruneValue(ft, v)
			}
		}
	default:
		return data
	}
	return out
}

func pruneValue(t reflect.Type, v any) any {
	if sub, ok := v.(map[string]any); ok {
		return pruneUnknown(t, sub)
	}
	return v
}

// tuiKeysRead are the [tui] keys the terminal UI reads: the screen mode, and what /tui,
// /theme, /keymap, /statusline, /title and /presets save.
var tuiKeysRead = map[string]bool{
	"alternate_screen": true, "fullscreen_transcript": true, "theme": true, "keymap": true,
	"status_line": true, "status_line_use_colors": true, "terminal_title": true, "presets": true,
}
