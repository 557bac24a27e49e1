package config

import (
	"time"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/process"
	"github.com/gocodex/gocodex/internal/writejournal"
	"github.com/gocodex/gocodex/protocol"
)

// DefaultChatGPTBaseURL is Codex's chatgpt_base_url.
const DefaultChatGPTBaseURL = "https://chatgpt.com/backend-api/"

// Config is the resolved configuration the engine and the faces run with:
// every layer applied, defaults filled in, enums checked.
type Config struct {
	CodexHome string
	Cwd       string
	// ProjectRoot is the nearest ancestor of Cwd holding a project root
	// marker (Cwd itself when there is none).
	ProjectRoot string
	// TrustLevel is the session's trust ("trusted", "untrusted" or "" when
	// config.toml does not decide): the [projects] entry of Cwd, else of the
	// repository root (the main checkout's for a linked worktree). No other
	// ancestor counts.
	TrustLevel string
	// TrustRoot is where a decision about the session's trust is recorded:
	// the repository root, else the project root.
	TrustRoot string
	// ProjectFolders are the project's .codex folders from the project root
	// down to Cwd, each with its trust. Only trusted ones load: config.toml
	// here, rules, hooks and custom commands by their loaders, each file
	// through ProjectFileRefused.
	ProjectFolders []ProjectFolder
	// writes is CODEX_HOME's write journal (see ProjectFileRefused); loadedAt is when
	// Load ran.
	writes   *writejournal.Journal
	loadedAt time.Time
	// Profile is the active profile name, if any.
	Profile string

	Model                      string
	ReviewModel                string
	ModelProviderID            string
	ModelProvider              model.ProviderInfo
	ModelProviders             map[string]model.ProviderInfo
	ModelContextWindow         *int64
	ModelAutoCompactTokenLimit *int64
	ToolOutputTokenLimit       *int64
	// ReasoningEffort is none|minimal|low|medium|high|xhigh, "" for the
	// model's default; likewise ReasoningSummary (auto|concise|detailed|none)
	// and Verbosity (low|medium|high).
	ReasoningEffort  string
	ReasoningSummary string
	Verbosity        string
	ServiceTier      string

	// ChatGPTBaseURL is chatgpt_base_url: the ChatGPT backend used with ChatGPT sign-in.
	ChatGPTBaseURL string
	// CLIAuthCredentialsStore is cli_auth_credentials_store: "file", "keyring" or "auto".
	CLIAuthCredentialsStore string
	// McpOAuthCredentialsStore is mcp_oauth_credentials_store: "file", "keyring" or "auto"
	// (the default); McpOAuthCallbackPort is mcp_oauth_callback_port (0: any free port).
	McpOAuthCredentialsStore string
	McpOAuthCallbackPort     int
	// ForcedLoginMethod is forced_login_method: "chatgpt", "api" or "" (either).
	ForcedLoginMethod string
	// ForcedChatGPTWorkspaceID is forced_chatgpt_workspace_id.
	ForcedChatGPTWorkspaceID string

	ApprovalPolicy         protocol.AskForApproval
	SandboxPolicy          protocol.SandboxPolicy
	ShellEnvironmentPolicy process.EnvPolicy
	// ShellEnvironmentUseProfile is experimental_use_profile: run commands
	// through the user's login profile.
	ShellEnvironmentUseProfile bool
	AllowLoginShell            bool

	// UserInstructions is the `instructions` key (added to AGENTS.md text).
	UserInstructions      string
	DeveloperInstructions string
	// BaseInstructions replaces the built-in prompt when not empty: from the
	// override, base_instructions, or the model_instructions_file contents.
	BaseInstructions            string
	CompactPrompt               string
	ProjectDocMaxBytes          int64
	ProjectDocFallbackFilenames []string
	ProjectRootMarkers          []string

	History  HistoryConfig
	Projects map[string]ProjectToml
	// Features are the raw [features] values; see FeatureEnabled.
	Features map[string]any
	Tools    ToolsConfig
	// WebSearchMode is web_search: "disabled", "cached", "indexed", "live" or "" (the
	// engine's default).
	WebSearchMode         string
	HideAgentReasoning    bool
	ShowRawAgentReasoning bool
	// Notify is the argv run after each turn, with a JSON payload appended.
	Notify     []string
	McpServers map[string]McpServerConfig
	// Lsp is the language servers' settings (`lsp`, `[lsp.<id>]`).
	Lsp LspConfig

	OSSProvider             string
	CheckForUpdateOnStartup bool
	FileOpener              string
	SqliteHome              string
	LogDir                  string

	// Layers are the sources that were applied, lowest precedence first
	// (for app-server config/read and `config` diagnostics).
	Layers []Layer
	// Effective is the merged TOML tree before typed overrides.
	Effective map[string]any
	// File is Effective decoded into the schema, for keys without a typed
	// field above.
	File File

	// SkillExtraRoots are folders of user skills a host adds at run time (the
	// app-server's skills/extraRoots/set); no config key sets them.
	SkillExtraRoots []string
}

// HistoryConfig is [history].
type HistoryConfig struct {
	// Persistence is "save-all" (default) or "none".
	Persistence string
	// MaxBytes caps history.jsonl; 0 means no cap.
	MaxBytes int64
}

// ToolsConfig is [tools] with defaults applied.
type ToolsConfig struct {
	ViewImage bool
	WebSearch bool
	// WebSearchOptions is the [tools.web_search] table (context_size, allowed_domains,
	// location), sent with the web_search tool.
	WebSearchOptions map[string]any
}

// FeatureEnabled reports a [features] flag, def when it is not set or not a
// boolean (table-valued features count as enabled unless `enabled = false`).
func (c *Config) FeatureEnabled(name string, def bool) bool {
	switch v := c.Features[name].(type) {
	case bool:
		return v
	case map[string]any:
		if b, ok := v["enabled"].(bool); ok {
			return b
		}
		return true
	}
	return def
}

// HistoryEnabled reports whether messages are appended to history.jsonl.
func (c *Config) HistoryEnabled() bool { return c.History.Persistence != "none" }

// Origin returns the highest-precedence layer that sets keyPath (for
// app-server config/read origins). Typed Overrides are not layers.
func (c *Config) Origin(keyPath []string) (Layer, bool) {
	for i := len(c.Layers) - 1; i >= 0; i-- {
		data := c.Layers[i].Data
		// A profile table's Data holds its keys at the top level, so the
		// same lookup works for every layer.
		if _, ok := getPath(data, keyPath); ok {
			return c.Layers[i], true
		}
	}
	return Layer{}, false
}
