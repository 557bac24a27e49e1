package config

import "github.com/gocodex/gocodex/internal/model"

// The types in this file mirror the on-disk shape of config.toml. Pointers
// mark "not set" so layers and defaults can be told apart. Keys that Codex
// knows but gocodex does not act on are listed in schema.go so they load
// silently instead of producing a warning.

// File is one config.toml (or the merge of several) as written by the user.
type File struct {
	Model                      *string `toml:"model"`
	ReviewModel                *string `toml:"review_model"`
	ModelProvider              *string `toml:"model_provider"`
	ModelContextWindow         *int64  `toml:"model_context_window"`
	ModelAutoCompactTokenLimit *int64  `toml:"model_auto_compact_token_limit"`
	ToolOutputTokenLimit       *int64  `toml:"tool_output_token_limit"`
	ModelReasoningEffort       *string `toml:"model_reasoning_effort"`
	ModelReasoningSummary      *string `toml:"model_reasoning_summary"`
	ModelVerbosity             *string `toml:"model_verbosity"`
	ServiceTier                *string `toml:"service_tier"`

	// ApprovalPolicy is a kebab-case string or a `{ granular = {...} }` table,
	// so it is decoded by hand in resolve.go.
	ApprovalPolicy        any                         `toml:"approval_policy"`
	SandboxMode           *string                     `toml:"sandbox_mode"`
	SandboxWorkspaceWrite *SandboxWorkspaceWriteToml  `toml:"sandbox_workspace_write"`
	ShellEnvironment      *ShellEnvironmentPolicyToml `toml:"shell_environment_policy"`
	AllowLoginShell       *bool                       `toml:"allow_login_shell"`

	Instructions                *string  `toml:"instructions"`
	DeveloperInstructions       *string  `toml:"developer_instructions"`
	BaseInstructions            *string  `toml:"base_instructions"`
	ModelInstructionsFile       *string  `toml:"model_instructions_file"`
	ExperimentalInstructionFile *string  `toml:"experimental_instructions_file"`
	CompactPrompt               *string  `toml:"compact_prompt"`
	ExperimentalCompactFile     *string  `toml:"experimental_compact_prompt_file"`
	ProjectDocMaxBytes          *int64   `toml:"project_doc_max_bytes"`
	ProjectDocFallbackFilenames []string `toml:"project_doc_fallback_filenames"`
	ProjectRootMarkers          []string `toml:"project_root_markers"`

	History  *HistoryToml           `toml:"history"`
	Projects map[string]ProjectToml `toml:"projects"`
	// Features values are usually booleans, but newer Codex features take a
	// table of settings (`[features.multi_agent_v2]`), so keep them raw.
	Features map[string]any `toml:"features"`
	Tools    *ToolsToml     `toml:"tools"`
	// WebSearch is the mode: "disabled", "cached" or "live".
	WebSearch *string `toml:"web_search"`

	HideAgentReasoning    *bool    `toml:"hide_agent_reasoning"`
	ShowRawAgentReasoning *bool    `toml:"show_raw_agent_reasoning"`
	Notify                []string `toml:"notify"`

	McpServers map[string]McpServerConfig `toml:"mcp_servers"`
	// Lsp is `lsp = false` or the `[lsp.<id>]` language server tables (decoded in lsp.go).
	Lsp            any                           `toml:"lsp"`
	ModelProviders map[string]model.ProviderInfo `toml:"model_providers"`
	OpenAIBaseURL  *string                       `toml:"openai_base_url"`
	OSSProvider    *string                       `toml:"oss_provider"`

	ChatGPTBaseURL          *string `toml:"chatgpt_base_url"`
	CLIAuthCredentialsStore *string `toml:"cli_auth_credentials_store"`
	// MCP OAuth: where the tokens go ("file", "keyring", "auto") and the callback's port.
	McpOAuthCredentialsStore *string `toml:"mcp_oauth_credentials_store"`
	McpOAuthCallbackPort     *int64  `toml:"mcp_oauth_callback_port"`
	ForcedLoginMethod        *string `toml:"forced_login_method"`
	ForcedChatGPTWorkspace   *string `toml:"forced_chatgpt_workspace_id"`

	CheckForUpdateOnStartup *bool   `toml:"check_for_update_on_startup"`
	FileOpener              *string `toml:"file_opener"`
	SqliteHome              *string `toml:"sqlite_home"`
	LogDir                  *string `toml:"log_dir"`

	Profile *string `toml:"profile"`
	// Profiles are `[profiles.<name>]` tables holding any top-level keys;
	// the selected one is merged over the top level before decoding.
	Profiles map[string]File `toml:"profiles"`

	ExperimentalUseUnifiedExecTool     *bool `toml:"experimental_use_unified_exec_tool"`
	ExperimentalUseFreeformApplyPatch  *bool `toml:"experimental_use_freeform_apply_patch"`
	IncludeApplyPatchTool              *bool `toml:"include_apply_patch_tool"`
	ToolsWebSearchRequest              *bool `toml:"tools_web_search_request"`
	ModelSupportsReasoningSummaries    *bool `toml:"model_supports_reasoning_summaries"`
	DisableResponseStorage             *bool `toml:"disable_response_storage"`
	SuppressUnstableFeaturesWarning    *bool `toml:"suppress_unstable_features_warning"`
	WindowsWSLSetupAcknowledged        *bool `toml:"windows_wsl_setup_acknowledged"`
	ExperimentalUseRmcpClient          *bool `toml:"experimental_use_rmcp_client"`
	ExperimentalSandboxCommandAssessor *bool `toml:"experimental_sandbox_command_assessment"`

	// Codex 0.171's tables: decoded so a wrong type is refused as Codex refuses it; gocodex
	// does not act on them (schema.go reports them as not supported, but the default
	// streaming responses mode, which is what gocodex does).
	CodeMode     *CodeModeToml     `toml:"code_mode"`
	RolloutTrace *RolloutTraceToml `toml:"rollout_trace"`
	Responses    *ResponsesToml    `toml:"responses"`
}

// CodeModeToml is Codex 0.171's `[code_mode]`.
type CodeModeToml struct {
	HeartbeatIntervalS *int64 `toml:"heartbeat_interval_s"`
}

// RolloutTraceToml is Codex 0.171's `[rollout_trace]`.
type RolloutTraceToml struct {
	MaxBytes        *int64 `toml:"max_bytes"`
	MaxPayloadBytes *int64 `toml:"max_payload_bytes"`
}

// ResponsesToml is Codex 0.171's `[responses]`: process_mode "streaming" (what gocodex does)
// or "after_complete_response".
type ResponsesToml struct {
	ProcessMode *string `toml:"process_mode"`
}

// SandboxWorkspaceWriteToml is `[sandbox_workspace_write]`.
type SandboxWorkspaceWriteToml struct {
	WritableRoots       []string `toml:"writable_roots"`
	NetworkAccess       *bool    `toml:"network_access"`
	ExcludeTmpdirEnvVar *bool    `toml:"exclude_tmpdir_env_var"`
	ExcludeSlashTmp     *bool    `toml:"exclude_slash_tmp"`
}

// ShellEnvironmentPolicyToml is `[shell_environment_policy]`.
type ShellEnvironmentPolicyToml struct {
	Inherit                *string           `toml:"inherit"`
	IgnoreDefaultExcludes  *bool             `toml:"ignore_default_excludes"`
	Exclude                []string          `toml:"exclude"`
	Set                    map[string]string `toml:"set"`
	IncludeOnly            []string          `toml:"include_only"`
	ExperimentalUseProfile *bool             `toml:"experimental_use_profile"`
}

// HistoryToml is `[history]`.
type HistoryToml struct {
	Persistence *string `toml:"persistence"`
	MaxBytes    *int64  `toml:"max_bytes"`
}

// ProjectToml is one `[projects."<abs path>"]` entry.
type ProjectToml struct {
	TrustLevel *string `toml:"trust_level"`
}

// ToolsToml is `[tools]`.
type ToolsToml struct {
	WebSearch any   `toml:"web_search"` // bool, or a table of options in newer Codex
	ViewImage *bool `toml:"view_image"`
}

// McpServerConfig is one `[mcp_servers.<name>]` table: stdio when Command is
// set, streamable HTTP when URL is set. It doubles as the resolved value.
type McpServerConfig struct {
	// stdio transport
	Command string            `toml:"command,omitempty" json:"command,omitempty"`
	Args    []string          `toml:"args,omitempty" json:"args,omitempty"`
	Env     map[string]string `toml:"env,omitempty" json:"env,omitempty"`
	EnvVars []string          `toml:"env_vars,omitempty" json:"env_vars,omitempty"`
	Cwd     string            `toml:"cwd,omitempty" json:"cwd,omitempty"`

	// streamable HTTP transport
	URL               string            `toml:"url,omitempty" json:"url,omitempty"`
	BearerTokenEnvVar string            `toml:"bearer_token_env_var,omitempty" json:"bearer_token_env_var,omitempty"`
	HTTPHeaders       map[string]string `toml:"http_headers,omitempty" json:"http_headers,omitempty"`
	EnvHTTPHeaders    map[string]string `toml:"env_http_headers,omitempty" json:"env_http_headers,omitempty"`

	// Enabled defaults to true; a nil pointer means "not written".
	Enabled                   *bool          `toml:"enabled,omitempty" json:"enabled,omitempty"`
	Required                  bool           `toml:"required,omitempty" json:"required,omitempty"`
	StartupTimeoutSec         *float64       `toml:"startup_timeout_sec,omitempty" json:"startup_timeout_sec,omitempty"`
	StartupTimeoutMs          *int64         `toml:"startup_timeout_ms,omitempty" json:"startup_timeout_ms,omitempty"`
	ToolTimeoutSec            *float64       `toml:"tool_timeout_sec,omitempty" json:"tool_timeout_sec,omitempty"`
	EnabledTools              []string       `toml:"enabled_tools,omitempty" json:"enabled_tools,omitempty"`
	DisabledTools             []string       `toml:"disabled_tools,omitempty" json:"disabled_tools,omitempty"`
	Scopes                    []string       `toml:"scopes,omitempty" json:"scopes,omitempty"`
	OAuthResource             string         `toml:"oauth_resource,omitempty" json:"oauth_resource,omitempty"`
	SupportsParallelToolCalls *bool          `toml:"supports_parallel_tool_calls,omitempty" json:"supports_parallel_tool_calls,omitempty"`
	Tools                     map[string]any `toml:"tools,omitempty" json:"tools,omitempty"`
}

// IsEnabled reports whether the server should be started (default true).
func (m McpServerConfig) IsEnabled() bool { return m.Enabled == nil || *m.Enabled }
